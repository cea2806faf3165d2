// Authentication on the health and version endpoints, as upstream: a request without credentials is
// served (anonymous), and so is a scheme no authenticator reads; a bearer token that does not
// authenticate is 401 with a Status on every path.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';

let s: TestServer;
beforeAll(async () => {
  s = await TestServer.start('memory');
});
afterAll(async () => {
  await s?.stop();
});

const PATHS = ['/healthz', '/livez', '/readyz', '/version', '/version/', '/healthz/ping', '/livez/ping', '/readyz/ping', '/readyz/shutdown', '/readyz?verbose', '/healthz?exclude=ping'];

/** Authorization header → expected status; `admin` stands for the server's admin token. */
const CREDENTIALS: { name: string; authorization: string | null; status: number }[] = [
  { name: 'no credentials', authorization: null, status: 200 },
  { name: 'Bearer without a token (anonymous)', authorization: 'Bearer ', status: 200 },
  { name: 'a scheme no authenticator reads (anonymous)', authorization: 'Basic dXNlcjpwYXNz', status: 200 },
  { name: 'a valid bearer token', authorization: 'admin', status: 200 },
  { name: 'an invalid bearer token', authorization: 'Bearer not-a-token', status: 401 },
  { name: 'an invalid bearer token, scheme in lower case', authorization: 'bearer not-a-token', status: 401 },
];

describe('health and version endpoints', () => {
  for (const c of CREDENTIALS) {
    it(`${c.name}: ${c.status} on every path`, async () => {
      const got: Record<string, unknown> = {};
      const want: Record<string, unknown> = {};
      for (const path of PATHS) {
        const headers: Record<string, string> = c.authorization === null ? {} : { Authorization: c.authorization === 'admin' ? `Bearer ${s.token}` : c.authorization };
        const r = await s.get(path, { token: null, headers });
        got[path] = c.status === 401 ? { status: r.status, kind: r.json?.kind, reason: r.json?.reason, code: r.json?.code } : r.status;
        want[path] = c.status === 401 ? { status: 401, kind: 'Status', reason: 'Unauthorized', code: 401 } : c.status;
      }
      expect(got).toEqual(want);
    });
  }
});
