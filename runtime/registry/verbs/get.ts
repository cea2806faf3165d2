// GET of one object, as an object or as the JSON text the HTTP layer sends (cached per revision).

import type { Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import { parseResourceVersion } from '../rest/update.ts';
import type { GetParams } from '../store-types.ts';
import type { StoreContext } from './context.ts';

/** Rendered GET bodies kept per store. */
const RENDERED_GETS = 256;

export async function get(ctx: StoreContext, namespace: string | undefined, name: string, params: GetParams = {}): Promise<Obj> {
  const rv = parseResourceVersion(params.resourceVersion);
  if (rv !== undefined && rv > 0) await ctx.objects.waitForRevision(rv);
  const found = await ctx.objects.get(namespace, name, rv);
  if (!found) throw ApiError.notFound(ctx.resource, name);
  return found.obj;
}

/** Rendered GET bodies by storage key: the text of one revision of an object never changes. */
export class RenderedGets {
  private readonly rendered = new Map<string, { rev: number; text: string }>();

  /**
   * GET as the JSON text the HTTP layer sends for a plain object (`{kind, apiVersion, ...}` and a
   * newline, not pretty); a GET of an unchanged object skips the parse and the stringify.
   */
  async getJson(ctx: StoreContext, namespace: string | undefined, name: string, params: GetParams = {}): Promise<string> {
    const rv = parseResourceVersion(params.resourceVersion);
    if (rv !== undefined && rv > 0) await ctx.objects.waitForRevision(rv);
    if (ctx.objects.converts) {
      // not cached: a conversion webhook is asked on every read, as upstream does
      return render(ctx, await get(ctx, namespace, name));
    }
    const kv = await ctx.objects.getRaw(namespace, name, rv);
    if (!kv) throw ApiError.notFound(ctx.resource, name);
    const hit = this.rendered.get(kv.key);
    if (hit !== undefined && hit.rev === kv.modRevision) return hit.text;
    const text = render(ctx, ctx.objects.decode(kv.value, kv.modRevision));
    if (hit === undefined && this.rendered.size >= RENDERED_GETS) this.rendered.delete(this.rendered.keys().next().value as string);
    this.rendered.set(kv.key, { rev: kv.modRevision, text });
    return text;
  }
}

function render(ctx: StoreContext, obj: Obj): string {
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return JSON.stringify({ kind: ctx.descriptor.kind, apiVersion: ctx.apiVersion, ...rest }) + '\n';
}
