// LIST: the options' validation, selection, paging with continue tokens, and the consistency of
// resourceVersion / resourceVersionMatch (api-conventions 4).

import type { Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import { keyAfter } from '../../storage/interface.ts';
import { fieldErr } from '../../schema/errors.ts';
import type { FieldError } from '../../schema/types.ts';
import { ContinueTokenError, decodeContinue, encodeContinue } from '../continue-token.ts';
import { parseResourceVersion } from '../rest/update.ts';
import { Selection } from '../selection.ts';
import type { ListParams, ListResult } from '../store-types.ts';
import { namespaceFor, type StoreContext } from './context.ts';

/** The most keys one storage read of a filtered list asks for (upstream's maxLimit). */
const MAX_LIST_PAGE = 10_000;

export function validateListOptions(ctx: StoreContext, params: ListParams, watch: boolean): void {
  const errs: FieldError[] = [];
  const match = params.resourceVersionMatch ?? '';
  if (watch) {
    if (params.sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan') {
        errs.push(fieldErr.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
      }
      if (!ctx.featureGates.WatchList) {
        errs.push(fieldErr.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
      }
    }
    if (match) {
      if (params.sendInitialEvents === undefined) {
        errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== 'NotOlderThan') errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (params.continue) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match) {
      if (!params.resourceVersion) {
        errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      }
      if (params.continue) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && params.resourceVersion === '0') {
        errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      }
    }
    if (params.sendInitialEvents !== undefined) errs.push(fieldErr.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errs.length) throw ApiError.invalidOptions('ListOptions', errs);
}

export async function list(ctx: StoreContext, namespace: string | undefined, params: ListParams = {}): Promise<ListResult> {
  validateListOptions(ctx, params, false);
  const sel = Selection.parse(params, ctx.descriptor, ctx.strategy);
  const prefix = ctx.objects.prefix(namespaceFor(ctx, namespace));
  const rv = parseResourceVersion(params.resourceVersion);
  // resourceVersion=0 without continue is answered in full, as upstream's watch cache does
  // (informers send limit=500 with it).
  const servedInFull = rv === 0 && !params.continue;
  const limit = params.limit && params.limit > 0 && !servedInFull ? Math.floor(params.limit) : 0;

  let snapshot: number | undefined;
  let startKey: string | undefined;
  let inconsistentContinue = false;
  if (params.continue) {
    if (rv !== undefined && rv !== 0) throw ApiError.badRequest('specifying resource version is not allowed when using continue');
    let tok;
    try {
      tok = decodeContinue(params.continue);
    } catch (e) {
      if (e instanceof ContinueTokenError) throw ApiError.badRequest(`invalid continue token: ${e.message}`);
      throw e;
    }
    snapshot = tok.rv;
    startKey = prefix + tok.start;
    inconsistentContinue = tok.rv < 0;
    if (inconsistentContinue) snapshot = undefined;
  } else if (rv !== undefined && rv > 0) {
    const match = params.resourceVersionMatch ?? '';
    const exact = match === 'Exact' || (match === '' && limit > 0);
    if (exact) {
      snapshot = rv;
      const cur = await ctx.objects.currentRevision();
      if (rv > cur) await ctx.objects.waitForRevision(rv);
    } else {
      await ctx.objects.waitForRevision(rv);
    }
  }

  const items: Obj[] = [];
  let more = false;
  let remaining = 0;
  let lastKey: string | undefined;
  let revision = 0;
  // As upstream's storage: pages are read until `limit` items match or the range ends, stopping at
  // the limit-th match (the continue key follows the last item returned); each further read of a
  // filtered list asks for twice as many keys, up to MAX_LIST_PAGE.
  let pageSize = limit;
  for (;;) {
    let page;
    try {
      page = await ctx.objects.listPage(prefix, { revision: snapshot, startKey, limit: pageSize || undefined });
    } catch (e) {
      if (params.continue && e instanceof ApiError && e.code === 410) throw continueExpired(prefix, startKey ?? prefix);
      throw e;
    }
    revision = page.revision;
    snapshot = page.revision;
    more = page.more;
    remaining = page.remaining;
    for (const { key, obj } of page.items) {
      if (limit && items.length >= limit) {
        more = true;
        break;
      }
      lastKey = key;
      if (!sel.matches(obj)) continue;
      // a copy without them rather than `delete`, which leaves V8 a slow dictionary object to stringify
      const { kind: _k, apiVersion: _a, ...item } = obj;
      items.push(item);
    }
    if (!limit || !more || items.length >= limit || page.items.length === 0) break;
    startKey = keyAfter(lastKey as string);
    pageSize = Math.min(pageSize * 2, Math.max(MAX_LIST_PAGE, limit));
  }
  const out: ListResult = {
    kind: ctx.descriptor.listKind,
    apiVersion: ctx.apiVersion,
    metadata: { resourceVersion: String(revision) },
    items,
  };
  // upstream gets the one key a name-pinning field selector names: no further page (MatchesSingle)
  const oneKey = !params.continue && sel.readsOneKey(ctx.descriptor.namespaced, namespace);
  if (limit && more && lastKey !== undefined && !oneKey) {
    out.metadata.continue = encodeContinue(revision, keyAfter(lastKey).slice(prefix.length));
    if (!sel.filters && !inconsistentContinue) out.metadata.remainingItemCount = remaining;
  }
  return out;
}

function continueExpired(prefix: string, startKey: string): ApiError {
  const err = new ApiError(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );
  err.statusMetadata = { continue: encodeContinue(-1, startKey.slice(prefix.length)) };
  return err;
}
