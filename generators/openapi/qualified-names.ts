// Names definitions as upstream does: `<package>.<Shape>` (io.cluster.api.core.v1.ConfigMap).
import type { Model, Resource } from '../model/model.ts';

export function qualifiedName(model: Model, shape: string): string {
  const s = model.shapes.get(shape);
  if (s) return `${s.package}.${shape}`;
  const owner = model.resources.find((r) => r.listKind === shape);
  if (owner) return `${model.shapes.get(owner.kind)!.package}.${shape}`;
  throw new Error(`unknown shape ${shape}`);
}

export function resourceOfList(model: Model, shape: string): Resource | undefined {
  return model.resources.find((r) => r.listKind === shape);
}
