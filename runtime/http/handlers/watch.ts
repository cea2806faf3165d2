// WATCH of a collection (or of one object by the legacy /watch/.../{name} path): a chunked stream
// of events in the negotiated shape, ended cleanly on timeout and on server shutdown.

import { ApiError } from '../../errors/api-error.ts';
import { metaOf, type Obj } from '../../api/object.ts';
import type { WatchEventType, WatchStream } from '../../registry/store-types.ts';
import { onServerShutdown } from '../lifecycle.ts';
import { negotiateResource } from '../negotiation.ts';
import { encode } from '../respond.ts';
import { columnDefinitions, partialObjectMetadata, tableRow, toTable } from '../table.ts';
import { namespaceOf, type RequestContext } from './context.ts';
import { includeObjectParam, listParams } from './params.ts';

/** Default watch length when timeoutSeconds is absent: upstream picks 30–60 min at random. */
function defaultWatchSeconds(): number {
  return 1800 + Math.floor(Math.random() * 1800);
}

/** Watch event lines by shared event object and event type. */
const serializedEvents = new WeakMap<Obj, Map<WatchEventType, string>>();

/** Cut off a watcher whose unsent output grows beyond this (a slow reader). */
const MAX_WATCH_BUFFER = 16 * 1024 * 1024;

export async function watch(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'list', true);
  const params = listParams(ctx.query);
  // The legacy /watch/.../{name} form watches one object.
  if (ctx.params.name !== undefined) {
    const extra = `metadata.name=${ctx.params.name.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=')}`;
    params.fieldSelector = params.fieldSelector ? `${params.fieldSelector},${extra}` : extra;
  }
  ctx.store.validateWatch(params);
  const res = ctx.res;
  const include = n.shape === 'Table' ? includeObjectParam(ctx.query) : 'Metadata';
  let headersWritten = false;
  let ended = false;
  let stream: WatchStream | undefined;
  let timer: NodeJS.Timeout | undefined;
  const writeHeaders = (): void => {
    if (headersWritten) return;
    headersWritten = true;
    res.writeHead(200, { 'Content-Type': n.contentType, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
  };
  const finish = (): void => {
    if (ended) return;
    ended = true;
    stream?.stop();
    if (timer) clearTimeout(timer);
    writeHeaders();
    res.end();
  };
  // The server shutting down ends the stream cleanly, as upstream's watch handler returns on its shutdown signal.
  onServerShutdown(res, finish);
  let firstTable = true;
  const serialize = (type: WatchEventType, object: Obj): string => {
    if (n.shape === 'object') {
      // Events shared by all watchers are serialized once (JSON is the only streaming format).
      let perType = serializedEvents.get(object);
      if (!perType) {
        perType = new Map();
        serializedEvents.set(object, perType);
      }
      let line = perType.get(type);
      if (line === undefined) {
        line = encode({ type, object }, 'json', false);
        perType.set(type, line);
      }
      return line;
    }
    let out: unknown = object;
    if (type !== 'ERROR') {
      if (n.shape === 'Table' && type !== 'BOOKMARK') {
        const t = toTable(ctx.store.descriptor, [], { resourceVersion: metaOf(object).resourceVersion }, include, n.metaGroup, ctx.store.apiVersion);
        t.columnDefinitions = firstTable ? columnDefinitions(ctx.store.descriptor) : [];
        firstTable = false;
        t.rows = [tableRow(ctx.store.descriptor, object, include, n.metaGroup, ctx.store.apiVersion)];
        out = t;
      } else if (n.shape === 'PartialObjectMetadata' && type !== 'BOOKMARK') {
        out = partialObjectMetadata(object, n.metaGroup);
      }
    }
    return encode({ type, object: out }, 'json', false);
  };
  const sink = {
    send(type: WatchEventType, object: Obj): void {
      if (ended) return;
      writeHeaders();
      res.write(serialize(type, object));
      if (res.writableLength > MAX_WATCH_BUFFER) {
        ended = true;
        stream?.stop();
        res.destroy();
      }
    },
    error(e: ApiError): void {
      sink.send('ERROR', e.toStatus() as unknown as Obj);
    },
    end(): void {
      finish();
    },
  };
  ctx.req.on('close', () => {
    if (!ended) {
      ended = true;
      stream?.stop();
      if (timer) clearTimeout(timer);
    }
  });
  const seconds = params.timeoutSeconds && params.timeoutSeconds > 0 ? params.timeoutSeconds : defaultWatchSeconds();
  timer = setTimeout(() => {
    stream?.bookmark();
    finish();
  }, seconds * 1000);
  try {
    stream = await ctx.store.watch(namespaceOf(ctx), params, sink);
  } catch (e) {
    if (timer) clearTimeout(timer);
    if (headersWritten) {
      // Already streaming: report in-stream, as upstream does.
      sink.error(e instanceof ApiError ? e : ApiError.internal(e));
      finish();
      return;
    }
    ended = true;
    throw e;
  }
  if (ended) stream.stop();
  else writeHeaders();
}
