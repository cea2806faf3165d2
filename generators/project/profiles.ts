// Which generators a run uses. This repository ("platform") runs every generator of generators/index.ts.
// A project runs the same list minus what only this repository's server needs (route modules, the
// mirror-CRD rule report), with CRDs in the project's own group and an entry without routes; a generator
// added to generators/index.ts (JSON Schemas, docs, ...) is part of both without a change here.
import { generators as platformGenerators } from '../index.ts';
import { createEntryGenerator } from '../entry.ts';
import type { Generator } from '../output.ts';
import { projectCrdsGenerator, type CrdFlavor } from './own-group-crds.ts';

/** Generators bound to this repository's server: its route table and the report on the mirror CRDs. */
export const PLATFORM_ONLY = new Set(['routes', 'rules-report']);

export function platformProfile(): Generator[] {
  return platformGenerators;
}

/**
 * `withCrds` false: CRD input already is the CRDs (generating them back would only copy them), and a
 * spec generated per version writes each kind's CRD once, across its versions (pipeline.ts).
 */
export function projectProfile(withCrds: boolean, crdFlavor: CrdFlavor): Generator[] {
  return platformGenerators.flatMap((g): Generator[] => {
    if (PLATFORM_ONLY.has(g.name)) return [];
    if (g.name === 'crds') return withCrds ? [projectCrdsGenerator(crdFlavor)] : [];
    if (g.name === 'entry') return [createEntryGenerator({ routes: false })];
    return [g];
  });
}
