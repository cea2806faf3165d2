// What a custom resource adds to the generic store (upstream's customresource strategy): /status
// keeps all metadata but managedFields; the CRD's selectable fields; and the schema server-side
// apply and managedFields use (the version's schema, metadata as ObjectMeta).

import { deepClone, isObj, meta, metaOf, type Obj } from '../api/object.ts';
import type { Strategy } from '../registry/strategy.ts';
import type { Schema } from '../schema/types.ts';
import type { CustomResourceVersion } from './custom-resource.ts';

/** The strategy of a custom resource version: /status keeps all metadata but managedFields; selectable fields. */
export function customResourceStrategy(crv: CustomResourceVersion): Strategy {
  return {
    prepareForStatusUpdate(obj, old) {
      const m = meta(obj);
      const keep = { resourceVersion: m.resourceVersion, managedFields: m.managedFields };
      const restored = deepClone(metaOf(old)) as Record<string, unknown>;
      restored.resourceVersion = keep.resourceVersion;
      if (keep.managedFields !== undefined) restored.managedFields = keep.managedFields;
      else delete restored.managedFields;
      obj.metadata = restored;
    },
    fieldValues(obj) {
      const out: Record<string, string> = {};
      for (const f of crv.selectableFields) out[f.name] = f.read(obj);
      return out;
    },
  };
}

/** The schema server-side apply and managedFields use for a custom resource (metadata as ObjectMeta). */
export function applyShape(crv: CustomResourceVersion): Schema {
  const raw = crv.version.schema?.openAPIV3Schema;
  const s = (isObj(raw) ? deepClone(raw) : { type: 'object', 'x-cluster-preserve-unknown-fields': true }) as Obj;
  const props = isObj(s.properties) ? s.properties : {};
  s.properties = { ...props, apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { $ref: '#/components/schemas/ObjectMeta' } };
  return s as Schema;
}
