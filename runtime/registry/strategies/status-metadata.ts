// upstream's metav1.ResetObjectMetaForStatus: a /status write may not change labels, annotations,
// finalizers or owner references (VolumeAttachment and CustomResourceDefinition use it).

import { deepClone, meta, metaOf, type Obj } from '../../api/object.ts';
import type { Strategy } from '../strategy.ts';

const KEPT = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

export function resetObjectMetaForStatus(obj: Obj, old: Obj): void {
  const m = meta(obj) as Record<string, unknown>;
  const o = metaOf(old) as Record<string, unknown>;
  for (const k of KEPT) {
    if (o[k] === undefined) delete m[k];
    else m[k] = deepClone(o[k]);
  }
}

/** The strategy of types whose /status restores metadata (besides spec, which the store restores). */
export const statusKeepsMetadataStrategy: Strategy = {
  prepareForStatusUpdate(obj, old) {
    resetObjectMetaForStatus(obj, old);
  },
};
