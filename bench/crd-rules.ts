// npm run bench:crd: custom resource create throughput against a real server process, for two CRDs
// with the same schema, one carrying 10 x-cluster-validations rules (comparisons, has, size,
// matches, all over bounded lists and a bounded map, a transition rule with oldSelf, a
// messageExpression) and one without rules, side by side in one run (rounds interleaved: none,
// rules, none, rules, ...). Prints both, the ratio (rules / none), and whether the rules are
// compiled once per CRD version rather than per request. The server exposes no compilation counter,
// so this is timed: the time this process takes to build the same version (schema + 10 rules, warm)
// is one compilation; the per-create cost of the rules (sequential medians, rules - none) must stay
// well below it. It also times the first create after Established and after a spec update (a new
// generation) against the median of the next creates. The server builds a CRD's versions when it
// installs the CRD (CustomResourceServing.install, on Established or a new generation), not on the
// first request, so neither first create should carry a compilation either.
//
//   npm run bench:crd -- [--n 2000] [--concurrency 16] [--rounds 3] [--storage memory|sqlite]

import { performance } from 'node:perf_hooks';
import { buildCustomResourceVersion, type CustomResourceDefinition } from '../runtime/crd/index.ts';
import { eventually, TestServer } from '../test/e2e/harness.ts';
import { loadOptions } from './cli-options.ts';

const { n: N, concurrency: CONCURRENCY, rounds: ROUNDS, storage: STORAGE } = loadOptions;
const SEQ = 50; // sequential creates for the per-request median next to the first create

const GROUP = 'bench.cluster.io';
const CRDS = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';
const NS = 'bench-crd';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The ten rules, all on `spec` (transition rules are skipped on create, as upstream).
function rules(immutableMessage = 'mode is immutable'): object[] {
  return [
    { rule: '!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
    { rule: '!has(self.minReplicas) || self.replicas >= self.minReplicas', message: 'replicas below minReplicas' },
    { rule: 'self.replicas <= 100', message: 'replicas must be at most 100' },
    { rule: 'has(self.image)', message: 'image is required' },
    { rule: 'size(self.name) >= 3', message: 'name too short' },
    { rule: "self.name.matches('^[a-z][a-z0-9-]*$')", message: 'name must be a lowercase identifier' },
    { rule: 'self.ports.all(p, p > 0 && p < 65536)', message: 'ports must be in 1..65535' },
    { rule: '!has(self.labels) || self.labels.all(k, size(k) <= 32 && size(self.labels[k]) > 0)', message: 'label keys at most 32 characters, values non-empty' },
    { rule: 'self.mode == oldSelf.mode', message: immutableMessage },
    { rule: 'size(self.tags) <= 8', messageExpression: "'at most 8 tags, got ' + string(size(self.tags))" },
  ];
}

function schema(withRules: boolean, immutableMessage?: string): object {
  return {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          required: ['name', 'replicas', 'ports', 'tags'],
          properties: {
            name: { type: 'string', maxLength: 63 },
            image: { type: 'string', maxLength: 256 },
            mode: { type: 'string', maxLength: 16 },
            replicas: { type: 'integer', minimum: 0, maximum: 1000 },
            minReplicas: { type: 'integer', minimum: 0, maximum: 1000 },
            maxReplicas: { type: 'integer', minimum: 0, maximum: 1000 },
            ports: { type: 'array', maxItems: 16, items: { type: 'integer' } },
            tags: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 32 } },
            labels: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 64 } },
          },
          ...(withRules ? { 'x-cluster-validations': rules(immutableMessage) } : {}),
        },
      },
    },
  };
}

function crdBody(plural: string, kind: string, withRules: boolean, immutableMessage?: string): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: schema(withRules, immutableMessage) }],
    },
  } as unknown as CustomResourceDefinition;
}

const SIDES = {
  none: { plural: 'plainwidgets', kind: 'PlainWidget', withRules: false },
  rules: { plural: 'ruledwidgets', kind: 'RuledWidget', withRules: true },
} as const;
type Side = keyof typeof SIDES;

interface Stats {
  perSec: number;
  p50: number;
  p99: number;
}

async function main(): Promise<void> {
  const s = await TestServer.start(STORAGE);
  let seq = 0;
  const path = (side: Side): string => `/apis/${GROUP}/v1/namespaces/${NS}/${SIDES[side].plural}`;
  const body = (side: Side, name: string, spec?: object): object => ({
    apiVersion: `${GROUP}/v1`,
    kind: SIDES[side].kind,
    metadata: { name },
    spec: spec ?? {
      name: 'frontend-web',
      image: 'registry.example/web:1.2.3',
      mode: 'rolling',
      replicas: 3,
      minReplicas: 1,
      maxReplicas: 10,
      ports: [80, 443, 8080],
      tags: ['web', 'public', 'tier-1'],
      labels: { app: 'web', team: 'frontend', env: 'prod' },
    },
  });
  const createOne = async (side: Side): Promise<number> => {
    const name = `w-${seq++}`;
    const t = performance.now();
    const r = await s.post(path(side), body(side, name));
    const ms = performance.now() - t;
    if (r.status !== 201) throw new Error(`create ${side}/${name}: ${r.status} ${r.text}`);
    return ms;
  };
  const createMany = async (side: Side, n: number): Promise<Stats> => {
    const lat: number[] = [];
    let next = 0;
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      while (next < n) {
        next++;
        lat.push(await createOne(side));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const ms = performance.now() - t0;
    return { perSec: (n / ms) * 1000, p50: median(lat), p99: [...lat].sort((a, b) => a - b)[Math.floor(lat.length * 0.99)] };
  };
  const established = (side: Side, generation?: number): Promise<unknown> =>
    eventually(async () => {
      const g = await s.get(`${CRDS}/${SIDES[side].plural}.${GROUP}`);
      const est = (g.json?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Established');
      if (est?.status !== 'True') return undefined;
      if (generation !== undefined && g.json.metadata.generation !== generation) return undefined;
      // No GET on the custom resources here: any request to them builds (and caches) the version,
      // which would move the compilation out of the first create timed below.
      return g.json;
    }, 30_000);
  // Sequential creates, one at a time: the per-request latency the first create is compared with.
  const sequential = async (side: Side, n: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(await createOne(side));
    return out;
  };

  try {
    const ns = await s.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    if (ns.status !== 201) throw new Error(`namespace: ${ns.text}`);
    for (const side of ['none', 'rules'] as Side[]) {
      const { plural, kind, withRules } = SIDES[side];
      const r = await s.post(CRDS, crdBody(plural, kind, withRules));
      if (r.status !== 201) throw new Error(`CRD ${plural}: ${r.status} ${r.text}`);
    }
    await established('none');
    await established('rules');

    // First creates after Established, then sequential ones. `none` goes first so it absorbs the
    // server's first-custom-resource-create costs.
    const firstNone = await createOne('none');
    const firstRules = await createOne('rules');
    const seqNone: number[] = [];
    const seqRules: number[] = [];
    for (let i = 0; i < SEQ; i++) {
      seqNone.push(...(await sequential('none', 1)));
      seqRules.push(...(await sequential('rules', 1)));
    }

    // The rules are enforced (not a no-op): a violating object is refused with the messageExpression's text.
    const bad = await s.post(
      path('rules'),
      body('rules', 'bad', { name: 'Bad_Name', image: 'x', replicas: 200, ports: [0], tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] }),
    );
    if (bad.status !== 422 || !bad.text.includes('at most 8 tags, got 9') || !bad.text.includes('name must be a lowercase identifier'))
      throw new Error(`expected 422 with rule messages for a violating object, got ${bad.status} ${bad.text}`);
    const badCauses = (bad.json?.details?.causes ?? []).length;

    // Warm-up (JIT) of both paths.
    await createMany('none', 1000);
    await createMany('rules', 1000);

    const none: Stats[] = [];
    const withRules: Stats[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      none.push(await createMany('none', N));
      withRules.push(await createMany('rules', N));
    }

    // A spec update (new generation): the version is built again, once (at install), and reused.
    const cur = await s.get(`${CRDS}/${SIDES.rules.plural}.${GROUP}`);
    const updated = crdBody(SIDES.rules.plural, SIDES.rules.kind, true, 'mode cannot change');
    (updated.metadata as { resourceVersion?: string }).resourceVersion = cur.json.metadata.resourceVersion;
    const u = await s.put(`${CRDS}/${SIDES.rules.plural}.${GROUP}`, updated);
    if (u.status !== 200) throw new Error(`update CRD: ${u.status} ${u.text}`);
    await established('rules', u.json.metadata.generation);
    const firstAfterUpdate = await createOne('rules');
    const seqAfterUpdate = await sequential('rules', SEQ);

    // What building the version (schema + 10 rules) costs in this process, warm (median of 20 builds of fresh copies).
    const local = crdBody(SIDES.rules.plural, SIDES.rules.kind, true);
    const localNone = crdBody(SIDES.none.plural, SIDES.none.kind, false);
    const build = (crd: CustomResourceDefinition): number => {
      const t = performance.now();
      buildCustomResourceVersion(structuredClone(crd), 'v1');
      return performance.now() - t;
    };
    for (let i = 0; i < 5; i++) (build(local), build(localNone));
    const buildRules: number[] = [];
    const buildNone: number[] = [];
    for (let i = 0; i < 20; i++) {
      buildRules.push(build(local));
      buildNone.push(build(localNone));
    }

    const pick = (xs: Stats[]): Stats => ({
      perSec: median(xs.map((x) => x.perSec)),
      p50: median(xs.map((x) => x.p50)),
      p99: median(xs.map((x) => x.p99)),
    });
    const a = pick(none);
    const b = pick(withRules);
    const line = (label: string, x: Stats): string =>
      `${label.padEnd(22)} ${x.perSec.toFixed(0).padStart(7)} creates/s   p50 ${x.p50.toFixed(2)} ms   p99 ${x.p99.toFixed(2)} ms`;
    const f = (ms: number): string => `${ms.toFixed(2)} ms`;
    const mNone = median(seqNone);
    const mRules = median(seqRules);
    const mUpd = median(seqAfterUpdate);
    const compileLocal = median(buildRules) - median(buildNone);
    process.stdout.write(
      [
        `Custom resource creates over HTTPS to a server process (${STORAGE} storage), two CRDs with the same schema: ${N} per round, ${ROUNDS} rounds interleaved, concurrency ${CONCURRENCY}; medians`,
        `per round: none ${none.map((x) => x.perSec.toFixed(0)).join(' / ')}   rules ${withRules.map((x) => x.perSec.toFixed(0)).join(' / ')} creates/s`,
        line('no rules', a),
        line('10 CEL rules', b),
        `ratio (rules / none)   ${(b.perSec / a.perSec).toFixed(3)}`,
        `a violating object: 422 with ${badCauses} causes (rule messages and the messageExpression's text)`,
        '',
        `Compiled once per CRD version (no compilation counter exposed; timed, sequential creates, concurrency 1):`,
        `  none:  first create after Established ${f(firstNone)}, median of the next ${SEQ} ${f(mNone)}  (first - median ${f(firstNone - mNone)})`,
        `  rules: first create after Established ${f(firstRules)}, median of the next ${SEQ} ${f(mRules)}  (first - median ${f(firstRules - mRules)})`,
        `  rules, after a spec update (generation ${u.json.metadata.generation}): first create ${f(firstAfterUpdate)}, median of the next ${SEQ} ${f(mUpd)}  (first - median ${f(firstAfterUpdate - mUpd)})`,
        `  building the version in this process (warm, median of 20): with rules ${f(median(buildRules))}, without ${f(median(buildNone))}  => rule compilation ~${f(compileLocal)}`,
        `  per-create cost of the rules (sequential medians, rules - none): ${f(mRules - mNone)}  = ${((mRules - mNone) / compileLocal).toFixed(2)} of one compilation (${mRules - mNone < compileLocal / 2 ? 'not compiled per request' : 'CHECK: close to a compilation per request'})`,
        '',
      ].join('\n'),
    );
  } finally {
    await s.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
