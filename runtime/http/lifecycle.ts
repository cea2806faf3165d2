// Graceful termination, as upstream's generic API server does it (lifecycle signals
// ShutdownInitiated → AfterShutdownDelayDuration → NotAcceptingNewRequest → InFlightRequestsDrained):
// the state ApiServer consults per request, the requests and watches in flight, and the hook by
// which a watch handler lets the server end its stream cleanly (the chunked response's last chunk,
// as upstream's watch handler returns on the server's shutdown signal).

import type { ServerResponse } from 'node:http';

/** How requests arriving once the server stops accepting are answered (--shutdown-send-retry-after). */
export type RejectMode = 'unavailable' | 'retry-after';

/** Paths upstream never rejects while shutting down (pathPrefixesExemptFromRetryAfter): probes keep answering. */
const EXEMPT_PREFIXES = ['/readyz', '/livez', '/healthz', '/metrics'];

export function exemptFromShutdownRejection(path: string, userAgent: string | undefined): boolean {
  // Upstream also exempts its own loopback client (user agent kube-apiserver/...).
  return EXEMPT_PREFIXES.some((p) => path.startsWith(p)) || (userAgent ?? '').startsWith('kube-apiserver/');
}

/** The end of each watch stream, by response; set by the watch handler. */
const watchEnds = new WeakMap<ServerResponse, () => void>();
/** Watches the server ended before their handler registered an end: they end on registration. */
const endRequested = new WeakSet<ServerResponse>();

/** Called by the watch handler once it can end its stream: `end` ends the response cleanly. */
export function onServerShutdown(res: ServerResponse, end: () => void): void {
  if (endRequested.has(res)) queueMicrotask(end);
  else watchEnds.set(res, end);
}

function endWatch(res: ServerResponse): void {
  const end = watchEnds.get(res);
  if (end) end();
  else endRequested.add(res);
}

export class ServerLifecycle {
  /** ShutdownInitiated: /readyz fails from here on (its `shutdown` check). */
  shutdownInitiated = false;
  /** NotAcceptingNewRequest: set with the way new requests are answered. */
  rejecting: RejectMode | undefined;
  /** Non-long-running requests whose handler has not returned. */
  private readonly requests = new Set<ServerResponse>();
  /** Watch responses not yet closed. */
  private readonly watches = new Set<ServerResponse>();
  private readonly watchEnded = new WeakSet<ServerResponse>();

  get inFlight(): number {
    return this.requests.size;
  }

  get activeWatches(): number {
    return this.watches.size;
  }

  requestStarted(res: ServerResponse): void {
    this.requests.add(res);
    // Answers given while draining close their connection (upstream: Connection: close / GOAWAY).
    if (this.rejecting) res.shouldKeepAlive = false;
  }

  requestDone(res: ServerResponse): void {
    this.requests.delete(res);
    if (this.waiters.length) this.wake();
  }

  watchStarted(res: ServerResponse): void {
    this.watches.add(res);
    res.once('close', () => {
      this.watches.delete(res);
      if (this.waiters.length) this.wake();
    });
    if (this.rejecting) res.shouldKeepAlive = false;
  }

  initiateShutdown(): void {
    this.shutdownInitiated = true;
  }

  /** NotAcceptingNewRequest: new requests are rejected; answers still to come close their connection. */
  stopAccepting(mode: RejectMode): void {
    this.shutdownInitiated = true;
    this.rejecting = mode;
    for (const res of this.requests) if (!res.headersSent) res.shouldKeepAlive = false;
  }

  /**
   * Ends every open watch cleanly. Upstream with --shutdown-watch-termination-grace-period spreads
   * the ends over the grace period at max(count/grace, 200) per second, so clients do not all come
   * back at once; with no grace period (0) they all end now. Resolves once all are ended (not flushed).
   */
  async endWatches(graceMs: number): Promise<void> {
    const pending = [...this.watches].filter((w) => !this.watchEnded.has(w));
    const perSecond = graceMs > 0 ? Math.max(pending.length / (graceMs / 1000), 200) : Infinity;
    const deadline = Date.now() + graceMs;
    for (let i = 0; i < pending.length; i++) {
      this.watchEnded.add(pending[i]);
      endWatch(pending[i]);
      if (perSecond === Infinity || i === pending.length - 1) continue;
      const wait = Math.min(1000 / perSecond, deadline - Date.now());
      if (wait <= 0) {
        // Past the grace period: the rest end at once.
        for (const w of pending.slice(i + 1)) {
          this.watchEnded.add(w);
          endWatch(w);
        }
        return;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** Resolves true once no non-long-running request is in flight, false when `timeoutMs` passes first. */
  requestsDrained(timeoutMs: number): Promise<boolean> {
    return this.until(() => this.requests.size === 0, timeoutMs);
  }

  /** Resolves true once every watch response has closed, false when `timeoutMs` passes first. */
  watchesClosed(timeoutMs: number): Promise<boolean> {
    return this.until(() => this.watches.size === 0, timeoutMs);
  }

  private waiters: { met: () => boolean; resolve: () => void }[] = [];

  private until(met: () => boolean, timeoutMs: number): Promise<boolean> {
    if (met()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        met,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => w.met());
    if (!ready.length) return;
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}
