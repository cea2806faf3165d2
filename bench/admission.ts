// npm run bench:admission: ConfigMap create throughput against a real server process, with no
// webhook and with one allowing validating webhook (real HTTPS, throwaway CA), side by side in one
// run (rounds interleaved: none, webhook, none, webhook, ...). Prints both, the ratio, and the TLS
// handshakes the webhook saw (connections must be reused: a handful, not one per request).
//
//   npm run bench:admission -- [--n 2000] [--concurrency 16] [--rounds 3] [--storage memory|sqlite]

import { performance } from 'node:perf_hooks';
import { makePKI, reply, startWebhookServer } from '../runtime/admission/webhook-fixture.ts';
import { TestServer } from '../test/e2e/harness.ts';
import { loadOptions } from './cli-options.ts';

const { n: N, concurrency: CONCURRENCY, rounds: ROUNDS, storage: STORAGE } = loadOptions;
const VWC = '/apis/admissionregistration.cluster.io/v1/validatingwebhookconfigurations';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const pki = makePKI();
  const wh = await startWebhookServer(pki);
  let calls = 0;
  wh.handlers.set('/allow', (rv, _req, res) => {
    calls++;
    reply(res, rv, { allowed: true });
  });
  const s = await TestServer.start(STORAGE);
  let seq = 0;
  const createMany = async (ns: string, n: number): Promise<{ perSec: number; p50: number; p99: number }> => {
    const lat: number[] = [];
    let next = 0;
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      while (next < n) {
        next++;
        const name = `cm-${seq++}`;
        const t = performance.now();
        const r = await s.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
        lat.push(performance.now() - t);
        if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.text}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const ms = performance.now() - t0;
    return { perSec: (n / ms) * 1000, p50: median(lat), p99: [...lat].sort((a, b) => a - b)[Math.floor(lat.length * 0.99)] };
  };
  try {
    for (const ns of ['bench-none', 'bench-hook']) {
      const r = await s.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      if (r.status !== 201) throw new Error(`namespace ${ns}: ${r.text}`);
    }
    const hookConfig = {
      apiVersion: 'admissionregistration.cluster.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'bench-allow' },
      webhooks: [
        {
          name: 'allow.bench.io',
          clientConfig: { url: wh.url('/allow'), caBundle: pki.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
          timeoutSeconds: 10,
        },
      ],
    };
    // Warm-up (JIT, connection pools) of both paths.
    await createMany('bench-none', 300);
    if ((await s.post(VWC, hookConfig)).status !== 201) throw new Error('register webhook');
    await createMany('bench-hook', 300);
    if ((await s.delete(`${VWC}/bench-allow`)).status !== 200) throw new Error('delete webhook');

    const none: { perSec: number; p50: number; p99: number }[] = [];
    const hook: { perSec: number; p50: number; p99: number }[] = [];
    const callsBefore = calls;
    for (let round = 0; round < ROUNDS; round++) {
      none.push(await createMany('bench-none', N));
      if ((await s.post(VWC, hookConfig)).status !== 201) throw new Error('register webhook');
      hook.push(await createMany('bench-hook', N));
      if ((await s.delete(`${VWC}/bench-allow`)).status !== 200) throw new Error('delete webhook');
    }
    const pick = (xs: { perSec: number; p50: number; p99: number }[]) => ({
      perSec: median(xs.map((x) => x.perSec)),
      p50: median(xs.map((x) => x.p50)),
      p99: median(xs.map((x) => x.p99)),
    });
    const a = pick(none);
    const b = pick(hook);
    const line = (label: string, x: { perSec: number; p50: number; p99: number }): string =>
      `${label.padEnd(22)} ${x.perSec.toFixed(0).padStart(7)} creates/s   p50 ${x.p50.toFixed(2)} ms   p99 ${x.p99.toFixed(2)} ms`;
    process.stdout.write(
      [
        `ConfigMap creates over HTTPS to a server process (${STORAGE} storage): ${N} per round, ${ROUNDS} rounds interleaved, concurrency ${CONCURRENCY}; medians`,
        line('no webhook', a),
        line('one allowing webhook', b),
        `ratio (webhook / none)  ${(b.perSec / a.perSec).toFixed(3)}`,
        `webhook calls: ${calls - callsBefore} measured (${calls} in all); TLS handshakes seen by the webhook: ${wh.handshakes} (TCP connections: ${wh.connections})`,
        '',
      ].join('\n'),
    );
    if (calls - callsBefore !== N * ROUNDS) throw new Error(`expected ${N * ROUNDS} webhook calls, saw ${calls - callsBefore}`);
  } finally {
    await s.stop();
    await wh.close();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
