// Answers of the resource handlers: an object or a list in the negotiated shape (the object,
// a Table, PartialObjectMetadata), with the write's warnings (upstream's handlers/response.go).

import { metaOf, type Obj } from '../../api/object.ts';
import type { ListResult } from '../../registry/store-types.ts';
import type { Store } from '../../registry/store.ts';
import type { Negotiated } from '../negotiation.ts';
import { sendValue, setWarnings, wantsPretty } from '../respond.ts';
import { partialObjectMetadata, toTable } from '../table.ts';
import type { RequestContext } from './context.ts';
import { includeObjectParam } from './params.ts';

export function withTypeMeta(store: Store, o: Obj): Obj {
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return { kind: store.descriptor.kind, apiVersion: store.apiVersion, ...rest };
}

export function renderObject(ctx: RequestContext, n: Negotiated, obj: Obj): unknown {
  switch (n.shape) {
    case 'Table':
      return toTable(ctx.store.descriptor, [obj], { resourceVersion: metaOf(obj).resourceVersion }, includeObjectParam(ctx.query), n.metaGroup, ctx.store.apiVersion);
    case 'PartialObjectMetadata':
      return partialObjectMetadata(obj, n.metaGroup);
    default:
      return withTypeMeta(ctx.store, obj);
  }
}

export function renderList(ctx: RequestContext, n: Negotiated, list: ListResult): unknown {
  switch (n.shape) {
    case 'Table':
      return toTable(ctx.store.descriptor, list.items, list.metadata, includeObjectParam(ctx.query), n.metaGroup, ctx.store.apiVersion);
    case 'PartialObjectMetadataList':
      return {
        kind: 'PartialObjectMetadataList',
        apiVersion: `${n.metaGroup}/v1`,
        metadata: list.metadata,
        items: list.items.map((i) => partialObjectMetadata(i, n.metaGroup)),
      };
    default:
      return list;
  }
}

export function respond(ctx: RequestContext, code: number, n: Negotiated, value: unknown, warnings: readonly string[] = []): void {
  setWarnings(ctx.res, warnings);
  sendValue(ctx.res, code, value, n.contentType, n.encoding, wantsPretty(ctx.req, ctx.query));
}
