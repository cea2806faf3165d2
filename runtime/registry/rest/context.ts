// What the pre-write steps read of a resource: its descriptor, validator, strategy and shapes.

import type { ResourceDescriptor } from '../../api/resource-descriptor.ts';
import type { CompiledValidator, Schema } from '../../schema/types.ts';
import type { Strategy } from '../strategy.ts';
import type { Obj } from '../../api/object.ts';

export interface ResourceContext {
  readonly descriptor: ResourceDescriptor;
  /** `v1` for core, `<group>/<version>` otherwise. */
  readonly apiVersion: string;
  /** The resource has a /status subresource. */
  readonly hasStatus: boolean;
  readonly validator: CompiledValidator;
  readonly strategy: Strategy;
  /** Named shapes (definitions.json): when given, writes maintain metadata.managedFields. */
  readonly shapes: Record<string, Schema> | undefined;
  /** Custom resources (converted between versions): empty fields are kept as the schema allows. */
  readonly converts: boolean;
  /** 413 when the object, from a request body of `bodyBytes`, is alone already over the storage's bound on one write (runtime/object-storage/stored-size.ts). */
  refuseOversized?(obj: Obj, bodyBytes: number | undefined): void;
}
