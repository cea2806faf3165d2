// Names definitions as upstream does: `<package>.<Shape>` (io.cluster.api.core.v1.ConfigMap).
import { listShapeOf, type Model, type Resource } from '../model/model.ts';

export function qualifiedName(model: Model, shape: string): string {
  const s = model.shapes.get(shape);
  if (s) return `${s.package}.${shape}`;
  const owner = model.resources.find((r) => listShapeOf(r) === shape);
  if (owner) return `${model.shapes.get(owner.shape)!.package}.${shape}`;
  throw new Error(`unknown shape ${shape}`);
}

export function resourceOfList(model: Model, shape: string): Resource | undefined {
  return model.resources.find((r) => listShapeOf(r) === shape);
}
