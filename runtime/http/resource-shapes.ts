// The named shapes a request's patch and apply handlers see: the handlers look a resource's schema
// up by its kind, so for a kind served in two groups (Event in core and events.cluster.io) the
// resource whose schema is named apart (`descriptor.shape`) gets the shapes with its own schema
// under the kind's name. Built once per resource.
import type { Schema } from '../schema/types.ts';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';

const views = new WeakMap<Record<string, Schema>, WeakMap<ResourceDescriptor, Record<string, Schema>>>();

export function shapesForResource(shapes: Record<string, Schema> | undefined, d: ResourceDescriptor): Record<string, Schema> | undefined {
  if (shapes === undefined || d.shape === undefined) return shapes;
  let byDescriptor = views.get(shapes);
  if (byDescriptor === undefined) views.set(shapes, (byDescriptor = new WeakMap()));
  let view = byDescriptor.get(d);
  if (view === undefined) {
    view = { ...shapes, [d.kind]: shapes[d.shape] };
    byDescriptor.set(d, view);
  }
  return view;
}
