// WATCH: the options, the initial events (synthetic ADDED for the current state at one snapshot,
// then the streaming list's end bookmark), then the changes after that revision filtered by the
// selection, with periodic bookmarks. A compacted start point is an ERROR event (410), as upstream.

import type { Obj } from '../../api/object.ts';
import type { ApiError } from '../../errors/api-error.ts';
import { watchError, type DecodedEvent, type ObjectWatch } from '../../object-storage/object-storage.ts';
import { keyAfter } from '../../storage/interface.ts';
import { parseResourceVersion } from '../rest/update.ts';
import { Selection } from '../selection.ts';
import type { ListParams, WatchSink, WatchStream } from '../store-types.ts';
import { namespaceFor, type StoreContext } from './context.ts';
import { validateListOptions } from './list.ts';

/** Checks a watch request before anything is streamed (400s), and returns its selection. */
export function validateWatch(ctx: StoreContext, params: ListParams): Selection {
  validateListOptions(ctx, params, true);
  parseResourceVersion(params.resourceVersion);
  return Selection.parse(params, ctx.descriptor, ctx.strategy);
}

export async function watch(ctx: StoreContext, namespace: string | undefined, params: ListParams, sink: WatchSink): Promise<WatchStream> {
  const sel = validateWatch(ctx, params);
  const prefix = ctx.objects.prefix(namespaceFor(ctx, namespace));
  const rv = parseResourceVersion(params.resourceVersion);
  const initial = params.sendInitialEvents === true || (params.sendInitialEvents === undefined && (rv === undefined || rv === 0));
  let stopped = false;
  let handle: ObjectWatch | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let lastRev = 0;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    handle?.cancel();
    if (bookmarkTimer) clearInterval(bookmarkTimer);
  };
  const typed = (o: Obj): Obj => {
    const { kind: _k, apiVersion: _a, ...rest } = o;
    return { kind: ctx.descriptor.kind, apiVersion: ctx.apiVersion, ...rest };
  };
  const bookmark = (rev: number, annotations?: Record<string, string>): void => {
    const md: Record<string, unknown> = { resourceVersion: String(rev) };
    if (annotations) md.annotations = annotations;
    sink.send('BOOKMARK', { kind: ctx.descriptor.kind, apiVersion: ctx.apiVersion, metadata: md });
  };
  const fail = (e: ApiError): void => {
    stop();
    sink.error(e);
    sink.end();
  };

  let from: number;
  if (initial) {
    if (rv !== undefined && rv > 0) await ctx.objects.waitForRevision(rv);
    let startKey: string | undefined;
    let snapshot: number | undefined;
    const added: Obj[] = [];
    for (;;) {
      // a storage failure (etcd unreachable) answers as its Status; a conversion failure is reported in-stream
      const page = await ctx.objects.readRange(prefix, { revision: snapshot, startKey, limit: 1000 });
      snapshot = page.revision;
      let items;
      try {
        items = await ctx.objects.decodeRange(page.items);
      } catch (e) {
        fail(watchError(e));
        return { stop, bookmark: () => undefined };
      }
      for (const { obj } of items) if (sel.matches(obj)) added.push(obj);
      if (!page.more || page.items.length === 0) break;
      startKey = keyAfter(page.items[page.items.length - 1].key);
    }
    from = snapshot ?? (await ctx.objects.currentRevision());
    for (const o of added) sink.send('ADDED', typed(o));
    // also upstream's key, which unmodified client-go's reflector waits for (README: compatibility choices)
    if (params.sendInitialEvents === true) bookmark(from, { 'cluster.io/initial-events-end': 'true', 'k8s.io/initial-events-end': 'true' });
  } else if (rv === undefined || rv === 0) {
    from = await ctx.objects.currentRevision();
  } else {
    from = rv;
  }
  lastRev = from;

  const deliver = ({ type, revision, cur, prev }: DecodedEvent): void => {
    if (stopped) return;
    lastRev = revision;
    const curMatch = cur !== undefined && sel.matches(cur);
    const prevMatch = prev !== undefined && sel.matches(prev);
    if (type === 'delete') {
      if (prevMatch && prev) sink.send('DELETED', prev);
      return;
    }
    if (curMatch && cur) sink.send(prevMatch ? 'MODIFIED' : 'ADDED', cur);
    else if (prevMatch && prev) sink.send('DELETED', prev);
  };
  handle = await ctx.objects.watch(prefix, from, deliver, (err) => {
    if (stopped) return;
    if (err) fail(err);
    else {
      stop();
      sink.end();
    }
  });
  if (stopped) handle.cancel();
  if (params.allowWatchBookmarks && !stopped) {
    const h = handle;
    bookmarkTimer = setInterval(() => {
      // the backend's progress (etcd's progress notifications) moves a quiet watch on, once the
      // events received before it are delivered
      const progress = h.progressRevision;
      h.afterPending(() => {
        if (!stopped) bookmark(Math.max(lastRev, progress));
      });
    }, ctx.bookmarkIntervalMs ?? 60_000);
    bookmarkTimer.unref();
  }
  return {
    stop,
    bookmark: () => {
      if (!stopped && params.allowWatchBookmarks) bookmark(lastRev);
    },
  };
}
