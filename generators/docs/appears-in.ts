// "Appears in": for every named shape, the shapes that refer to it directly and the kinds whose
// objects contain it anywhere (the list kind of a kind contains the kind).
import type { Model, Resource } from '../model/model.ts';
import { visitSchema } from '../model/check.ts';
import { shapeNameOf } from './field-model.ts';

export interface AppearsIn {
  /** Shapes whose schema refers to this one, sorted. */
  shapes: string[];
  /** Kinds whose object contains this shape, in the model's order. */
  kinds: Resource[];
}

export function appearsInIndex(model: Model): Map<string, AppearsIn> {
  const refersTo = new Map<string, Set<string>>();
  const referredBy = new Map<string, Set<string>>();
  for (const shape of model.shapes.values()) {
    const targets = new Set<string>();
    visitSchema(shape.schema, [], (node) => {
      if (node.$ref) targets.add(shapeNameOf(node.$ref));
    });
    refersTo.set(shape.name, targets);
    for (const t of targets) {
      if (!referredBy.has(t)) referredBy.set(t, new Set());
      referredBy.get(t)?.add(shape.name);
    }
  }
  const kindsOf = new Map<string, Resource[]>();
  for (const r of model.resources) {
    const seen = new Set<string>();
    const queue = [r.shape];
    while (queue.length) {
      const name = queue.pop() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      queue.push(...(refersTo.get(name) ?? []));
    }
    for (const name of seen) {
      if (name === r.shape) continue;
      if (!kindsOf.has(name)) kindsOf.set(name, []);
      kindsOf.get(name)?.push(r);
    }
  }
  const index = new Map<string, AppearsIn>();
  for (const name of model.shapes.keys()) {
    index.set(name, { shapes: [...(referredBy.get(name) ?? [])].filter((s) => s !== name).sort(), kinds: kindsOf.get(name) ?? [] });
  }
  return index;
}
