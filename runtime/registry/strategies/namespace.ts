// Namespace: `default` exists from the start and may not be deleted; DELETE marks the namespace
// Terminating (deletionTimestamp, status.phase) and returns it, then deletes everything in it and
// finally the namespace itself (the namespace controller's work, done by the server).

import { ApiError } from '../../errors/api-error.ts';
import { deepClone, meta, nowTimestamp, isObj, type Obj } from '../object.ts';
import type { Strategy, StrategyContext } from '../strategy.ts';
import type { DeleteOptions, DeleteResult } from '../store.ts';

const PROTECTED = new Set(['default']);
/** How often and how long the server retries removing a namespace whose contents are still going away. */
const FINALIZE_RETRY_MS = 500;
const FINALIZE_TRIES = 120;

async function finalize(ctx: StrategyContext, name: string, tries: number): Promise<void> {
  const { registry, store } = ctx;
  try {
    await registry.deleteNamespaceContents(name);
    if (await registry.namespaceHasContent(name)) throw new Error('content remains');
    const cur = await store.get(undefined, name).catch(() => undefined);
    if (!cur) return;
    const m = meta(cur);
    if (m.finalizers && m.finalizers.length) throw new Error('finalizers remain');
    await store.deleteObject(cur, Number(m.resourceVersion), {});
  } catch {
    if (tries > 0) {
      const t = setTimeout(() => void finalize(ctx, name, tries - 1), FINALIZE_RETRY_MS);
      t.unref();
    }
  }
}

export const namespaceStrategy: Strategy = {
  prepareForCreate(obj) {
    const status: Obj = isObj(obj.status) ? obj.status : {};
    status.phase = 'Active';
    obj.status = status;
  },
  async delete(ctx: StrategyContext, current: Obj, options: DeleteOptions): Promise<DeleteResult> {
    const m = meta(current);
    const name = m.name as string;
    if (PROTECTED.has(name)) throw ApiError.forbidden(ctx.store.resource, name, 'this namespace may not be deleted');
    if (m.deletionTimestamp) return { kind: 'object', object: current, deferred: true };
    const next = deepClone(current);
    const nm = meta(next);
    nm.deletionTimestamp = nowTimestamp();
    nm.deletionGracePeriodSeconds = 0;
    const status: Obj = isObj(next.status) ? next.status : {};
    status.phase = 'Terminating';
    next.status = status;
    if (options.dryRun) return { kind: 'object', object: next, deferred: true };
    const written = await ctx.store.writeServerUpdate(next, Number(m.resourceVersion));
    void finalize(ctx, name, FINALIZE_TRIES);
    return { kind: 'object', object: written, deferred: true };
  },
};
