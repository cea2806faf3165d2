// The shutdown sequence of upstream's generic API server (RunWithContext), on a node:http server:
//   1. ShutdownInitiated: /readyz fails; everything else is served as before for the shutdown delay
//      (--shutdown-delay-duration), so a load balancer can stop sending traffic.
//   2. NotAcceptingNewRequest: the listener closes (new connections are refused) and idle keep-alive
//      connections are closed; a request still arriving on an open connection gets 503 with
//      Retry-After: 1. With --shutdown-send-retry-after the listener stays open until the in-flight
//      requests have drained, and every new request gets 429 with Retry-After: 5 and Connection: close.
//   3. Every open watch is ended cleanly (the last chunk of its response), spread over
//      --shutdown-watch-termination-grace-period when one is given. (Upstream without a grace period
//      leaves watches to be cut when the process exits; here they always end cleanly.)
//   4. In-flight requests finish, each bounded by the request timeout (upstream's ShutdownTimeout is
//      its RequestTimeout, 60 s); then the remaining connections are closed.
// The caller then stops the controllers and closes storage.

import type { Server as HttpServer } from 'node:http';
import type { ServerLifecycle } from './lifecycle.ts';

export interface ShutdownOptions {
  /** --shutdown-delay-duration: how long /readyz fails while the server still serves normally. */
  delayMs: number;
  /** --shutdown-watch-termination-grace-period: the window over which watches are ended (0: all at once). */
  watchGraceMs: number;
  /** --shutdown-send-retry-after: keep listening and answer 429 until in-flight requests have drained. */
  sendRetryAfter: boolean;
  /** The longest an in-flight request may still take: the request timeout. */
  requestTimeoutMs: number;
}

export interface ShutdownResult {
  /** Every non-long-running request finished in time. */
  requestsDrained: boolean;
  /** Every ended watch response was flushed to its client in time. */
  watchesClosed: boolean;
}

export async function shutDownGracefully(server: HttpServer, lifecycle: ServerLifecycle, o: ShutdownOptions): Promise<ShutdownResult> {
  lifecycle.initiateShutdown();
  if (o.delayMs > 0) await new Promise((r) => setTimeout(r, o.delayMs));
  const deadline = Date.now() + Math.max(o.requestTimeoutMs, o.watchGraceMs);
  lifecycle.stopAccepting(o.sendRetryAfter ? 'retry-after' : 'unavailable');
  // close() stops listening and, since Node 19, closes the idle keep-alive connections.
  if (!o.sendRetryAfter) server.close();
  const watchesEnded = lifecycle.endWatches(o.watchGraceMs);
  const requestsDrained = await lifecycle.requestsDrained(Math.max(0, deadline - Date.now()));
  if (o.sendRetryAfter) server.close();
  await watchesEnded;
  const watchesClosed = await lifecycle.watchesClosed(Math.max(0, deadline - Date.now()));
  server.closeAllConnections();
  return { requestsDrained, watchesClosed };
}
