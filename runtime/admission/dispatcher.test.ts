// End-to-end: a real HTTPS webhook server on 127.0.0.1 with a CA generated here (openssl).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileStats } from './match-conditions.ts';
import { DefaultServiceResolver, parseServiceResolverOverrides, WebhookClient } from './client.ts';
import { ValidatingAdmission, type WebhookEvent } from './dispatcher.ts';
import type { AdmissionAttributes, AdmissionResult, ValidatingWebhook, ValidatingWebhookConfiguration } from './types.ts';
import { makePKI, reply, startWebhookServer, type TestPKI, type WebhookServer } from './webhook-fixture.ts';

let pki: TestPKI;
let otherPki: TestPKI;
let srv: WebhookServer;
let refusedPort: number;
const timers = new Set<NodeJS.Timeout>();
const later = (ms: number, f: () => void): void => {
  const t = setTimeout(() => {
    timers.delete(t);
    f();
  }, ms);
  timers.add(t);
};

beforeAll(async () => {
  pki = makePKI();
  otherPki = makePKI();
  srv = await startWebhookServer(pki);
  const h = srv.handlers;
  h.set('/allow', (rv, _q, res) => reply(res, rv, { allowed: true }));
  h.set('/deny', (rv, _q, res) =>
    reply(res, rv, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no csidrivers on Tuesdays' } }));
  h.set('/deny-plain', (rv, _q, res) => reply(res, rv, { allowed: false, status: { message: 'plain no' } }));
  h.set('/deny-bare', (rv, _q, res) => reply(res, rv, { allowed: false }));
  h.set('/deny-reason-only', (rv, _q, res) => reply(res, rv, { allowed: false, status: { code: 422, reason: 'Invalid' } }));
  h.set('/deny-slow', (rv, _q, res) => later(150, () => reply(res, rv, { allowed: false, status: { message: 'slow one' }, warnings: ['from slow'] })));
  h.set('/deny-fast', (rv, _q, res) => reply(res, rv, { allowed: false, status: { message: 'fast one' }, warnings: ['from fast'] }));
  h.set('/slow', (rv, _q, res) => later(2500, () => reply(res, rv, { allowed: true })));
  h.set('/500', (_rv, _q, res) => {
    res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end('boom');
  });
  h.set('/garbage', (_rv, _q, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('this is not json');
  });
  h.set('/huge', (_rv, _q, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < 8 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('error', () => undefined);
    pump();
  });
  h.set('/wronguid', (rv, _q, res) => reply(res, rv, { allowed: true }, { uid: 'not-the-uid' }));
  h.set('/wrongkind', (rv, _q, res) => reply(res, rv, { allowed: true }, { apiVersion: 'admission.cluster.io/v1beta1' }));
  h.set('/close', (_rv, q) => q.socket.destroy());
  h.set('/warn', (rv, _q, res) => reply(res, rv, { allowed: true, warnings: ['first warning', 'second warning'] }));
  h.set('/v1beta1', (rv, _q, res) => reply(res, rv, { allowed: true }, { uid: 'anything' }));
  h.set('/tagA', (rv, _q, res) => later(20, () => reply(res, rv, { allowed: true, warnings: ['A'] })));
  h.set('/tagB', (rv, _q, res) => later(20, () => reply(res, rv, { allowed: true, warnings: ['B'] })));
  // a port with nothing listening
  const tmp = await startWebhookServer(pki);
  refusedPort = tmp.port;
  await tmp.close();
}, 60_000);

afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await srv?.close();
});

const NAME = 'check.example.com';
const hook = (path: string, over: Partial<ValidatingWebhook> = {}): ValidatingWebhook => ({
  name: NAME,
  clientConfig: { url: srv.url(path), caBundle: pki.caBundle },
  rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  failurePolicy: 'Fail',
  timeoutSeconds: 5,
  ...over,
});
const config = (name: string, webhooks: ValidatingWebhook[], resourceVersion = '1'): ValidatingWebhookConfiguration => ({
  apiVersion: 'admissionregistration.cluster.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name, resourceVersion, uid: `uid-${name}` },
  webhooks,
});

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: 'storage.cluster.io', version: 'v1', kind: 'CSIDriver' },
  resource: { group: 'storage.cluster.io', version: 'v1', resource: 'csidrivers' },
  name: 'drv',
  object: { apiVersion: 'storage.cluster.io/v1', kind: 'CSIDriver', metadata: { name: 'drv', labels: { team: 'a' } }, spec: { attachRequired: true } },
  oldObject: null,
  userInfo: { username: 'alice', uid: 'u-1', groups: ['system:authenticated'] },
  options: { apiVersion: 'meta.cluster.io/v1', kind: 'CreateOptions' },
  ...over,
});

async function once(hooks: ValidatingWebhook[], a: AdmissionAttributes = attrs(), adm = new ValidatingAdmission()): Promise<AdmissionResult> {
  adm.setConfigurations([config('cfg', hooks)]);
  try {
    return await adm.validate(a);
  } finally {
    adm.close();
  }
}

function rejected(r: AdmissionResult) {
  if (r.allowed) throw new Error('expected a rejection');
  return r.rejection;
}

describe('calls', () => {
  it('allows', async () => {
    const r = await once([hook('/allow')]);
    expect(r).toEqual({ allowed: true, warnings: [] });
  });

  it('denies with the webhook message, code and reason', async () => {
    const r = rejected(await once([hook('/deny')]));
    expect(r).toMatchObject({ code: 403, reason: 'Forbidden', message: `admission webhook "${NAME}" denied the request: no csidrivers on Tuesdays` });
  });

  it('a denial without a code is 400; without a message uses the reason; without both, "without explanation"', async () => {
    expect(rejected(await once([hook('/deny-plain')]))).toMatchObject({ code: 400, message: `admission webhook "${NAME}" denied the request: plain no` });
    expect(rejected(await once([hook('/deny-reason-only')]))).toMatchObject({ code: 422, reason: 'Invalid', message: `admission webhook "${NAME}" denied the request: Invalid` });
    expect(rejected(await once([hook('/deny-bare')]))).toMatchObject({ code: 400, message: `admission webhook "${NAME}" denied the request without explanation` });
  });

  it('sends every request field in an AdmissionReview with a fresh uid', async () => {
    const before = srv.seen.length;
    const a = attrs({
      operation: 'UPDATE',
      namespace: '',
      subResource: '',
      oldObject: { metadata: { name: 'drv' }, spec: { attachRequired: false } },
      dryRun: true,
      options: { kind: 'UpdateOptions', apiVersion: 'meta.cluster.io/v1', dryRun: ['All'] },
      userInfo: { username: 'alice', uid: 'u-1', groups: ['system:authenticated', 'devs'], extra: { scopes: ['x'] } },
    });
    const adm = new ValidatingAdmission();
    adm.setConfigurations([config('cfg', [hook('/allow')])]);
    await adm.validate(a);
    await adm.validate(a);
    adm.close();
    const [s1, s2] = srv.seen.slice(before);
    expect(s1.path).toBe('/allow');
    expect(s1.query).toBe('?timeout=5s');
    expect(s1.review.apiVersion).toBe('admission.cluster.io/v1');
    expect(s1.review.kind).toBe('AdmissionReview');
    const q = s1.review.request;
    expect(q.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(s2.review.request.uid).not.toBe(q.uid);
    expect(q).toMatchObject({
      kind: { group: 'storage.cluster.io', version: 'v1', kind: 'CSIDriver' },
      resource: { group: 'storage.cluster.io', version: 'v1', resource: 'csidrivers' },
      requestKind: { group: 'storage.cluster.io', version: 'v1', kind: 'CSIDriver' },
      requestResource: { group: 'storage.cluster.io', version: 'v1', resource: 'csidrivers' },
      name: 'drv',
      operation: 'UPDATE',
      userInfo: { username: 'alice', uid: 'u-1', groups: ['system:authenticated', 'devs'], extra: { scopes: ['x'] } },
      object: a.object,
      oldObject: a.oldObject,
      dryRun: true,
      options: a.options,
    });
    expect('namespace' in q).toBe(false);
    expect('subResource' in q).toBe(false);
  });

  it('DELETE sends a null object and the old object', async () => {
    const before = srv.seen.length;
    const old = { metadata: { name: 'drv' } };
    await once([hook('/allow')], attrs({ operation: 'DELETE', object: null, oldObject: old }));
    const q = srv.seen[before].review.request;
    expect(q.object).toBeNull();
    expect(q.oldObject).toEqual(old);
  });

  it('uses the first supported admissionReviewVersion (v1beta1 after an unknown one)', async () => {
    const before = srv.seen.length;
    const r = await once([hook('/v1beta1', { admissionReviewVersions: ['v9', 'v1beta1', 'v1'] })]);
    expect(r.allowed).toBe(true);
    expect(srv.seen[before].review.apiVersion).toBe('admission.cluster.io/v1beta1');
  });

  it('no supported admissionReviewVersion fails under the failure policy', async () => {
    expect(rejected(await once([hook('/allow', { admissionReviewVersions: ['v9'] })])).message).toBe(
      `Internal error occurred: failed calling webhook "${NAME}": webhook does not accept known AdmissionReview versions (v1, v1beta1)`,
    );
    expect((await once([hook('/allow', { admissionReviewVersions: ['v9'], failurePolicy: 'Ignore' })])).allowed).toBe(true);
  });

  it('returns warnings for Warning headers', async () => {
    expect(await once([hook('/warn')])).toEqual({ allowed: true, warnings: ['first warning', 'second warning'] });
  });

  it('reaches a service through the resolver and verifies the certificate for <name>.<namespace>.svc', async () => {
    const resolver = new DefaultServiceResolver(parseServiceResolverOverrides(`default/webhook=https://127.0.0.1:${srv.port},default/other:8443=https://127.0.0.1:${srv.port}`));
    const adm = new ValidatingAdmission({ clientOptions: { serviceResolver: resolver } });
    const svcHook = (name: string, port?: number): ValidatingWebhook =>
      hook('', { clientConfig: { service: { namespace: 'default', name, path: '/allow', port }, caBundle: pki.caBundle } });
    expect(await once([svcHook('webhook')], attrs(), adm)).toEqual({ allowed: true, warnings: [] });
    const adm2 = new ValidatingAdmission({ clientOptions: { serviceResolver: resolver } });
    const r = rejected(await once([svcHook('other', 8443)], attrs(), adm2));
    expect(r.message).toContain('tls: failed to verify certificate: x509:');
    expect(r.message).toContain('other.default.svc');
    expect(new DefaultServiceResolver().resolve({ namespace: 'ns', name: 'svc', port: 443 }).toString()).toBe('https://svc.ns.svc/');
  });
});

describe('failure modes under Fail and Ignore', () => {
  const prefix = `Internal error occurred: failed calling webhook "${NAME}": `;
  const modes: { name: string; hook: () => ValidatingWebhook; want: RegExp }[] = [
    {
      name: 'timeout (timeoutSeconds 1)',
      hook: () => hook('/slow', { timeoutSeconds: 1 }),
      want: /^Post "https:\/\/127\.0\.0\.1:\d+\/slow\?timeout=1s": context deadline exceeded$/,
    },
    {
      name: 'connection refused',
      hook: () => hook('', { clientConfig: { url: `https://127.0.0.1:${refusedPort}/x`, caBundle: pki.caBundle } }),
      want: /^Post "https:\/\/127\.0\.0\.1:\d+\/x\?timeout=5s": dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/,
    },
    { name: 'non-200', hook: () => hook('/500'), want: /^an error on the server \("boom"\) has prevented the request from succeeding$/ },
    { name: '404 without a Status', hook: () => hook('/nothing-here'), want: /^the server could not find the requested resource$/ },
    { name: 'garbage body', hook: () => hook('/garbage'), want: /^couldn't get version\/kind; json parse error: / },
    { name: 'huge body', hook: () => hook('/huge'), want: /^Post "[^"]+": response body too large: exceeds 3145728 bytes$/ },
    { name: 'wrong uid', hook: () => hook('/wronguid'), want: /^received invalid webhook response: expected response\.uid="[0-9a-f-]{36}", got "not-the-uid"$/ },
    {
      name: 'wrong kind/version',
      hook: () => hook('/wrongkind'),
      want: /^received invalid webhook response: expected webhook response of admission\.cluster\.io\/v1, Kind=AdmissionReview, got admission\.cluster\.io\/v1beta1, Kind=AdmissionReview$/,
    },
    { name: 'closed connection', hook: () => hook('/close'), want: /^Post "[^"]+": (EOF|read tcp .*connection reset by peer)$/ },
    {
      name: 'wrong caBundle fails TLS verification',
      hook: () => hook('/allow', { clientConfig: { url: srv.url('/allow'), caBundle: otherPki.caBundle } }),
      want: /^Post "[^"]+": tls: failed to verify certificate: x509: certificate signed by unknown authority$/,
    },
    {
      name: 'no caBundle: system roots do not trust the test CA',
      hook: () => hook('/allow', { clientConfig: { url: srv.url('/allow') } }),
      want: /^Post "[^"]+": tls: failed to verify certificate: x509: certificate signed by unknown authority$/,
    },
    {
      name: 'caBundle that is not PEM',
      hook: () => hook('/allow', { clientConfig: { url: srv.url('/allow'), caBundle: Buffer.from('nope').toString('base64') } }),
      want: /^unable to load root certificates: unable to parse bytes as PEM block$/,
    },
    {
      name: 'http scheme',
      hook: () => hook('/allow', { clientConfig: { url: `http://127.0.0.1:${srv.port}/allow` } }),
      want: /^webhook URL scheme must be https/,
    },
  ];
  for (const m of modes) {
    it(`${m.name}: Fail rejects with 500 InternalError`, async () => {
      const t0 = Date.now();
      const r = rejected(await once([m.hook()]));
      expect(Date.now() - t0).toBeLessThan(4000);
      expect(r.code).toBe(500);
      expect(r.reason).toBe('InternalError');
      expect(r.message.startsWith(prefix)).toBe(true);
      expect(r.message.slice(prefix.length)).toMatch(m.want);
      expect(r.details?.causes?.[0].message).toBe(r.message.slice('Internal error occurred: '.length));
    });
    it(`${m.name}: Ignore skips`, async () => {
      const events: WebhookEvent[] = [];
      const adm = new ValidatingAdmission({ onWebhookEvent: (e) => events.push(e) });
      const r = await once([{ ...m.hook(), failurePolicy: 'Ignore' }], attrs(), adm);
      expect(r).toEqual({ allowed: true, warnings: [] });
      expect(events.map((e) => e.outcome)).toEqual(['failed-open']);
    });
  }

  it('the timeout covers the whole call (about timeoutSeconds)', async () => {
    const t0 = Date.now();
    await once([hook('/slow', { timeoutSeconds: 1 })]);
    const ms = Date.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(2000);
  });
});

describe('cancellation and pooled-connection failures', () => {
  it('an aborted API request cancels the call (context canceled, under the failure policy)', async () => {
    const adm = new ValidatingAdmission();
    adm.setConfigurations([config('cfg', [hook('/slow')])]);
    const ac = new AbortController();
    const t0 = Date.now();
    const p = adm.validate(attrs(), { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    const r = rejected(await p);
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(r.message).toMatch(/failed calling webhook "check\.example\.com": Post "[^"]+": context canceled$/);
    adm.close();
  });

  it('a pooled connection closed by the webhook: one retry on a fresh connection, then the failure policy', async () => {
    const client = new WebhookClient();
    const adm = new ValidatingAdmission({ client });
    adm.setConfigurations([config('cfg', [hook('/allow')])]);
    expect((await adm.validate(attrs())).allowed).toBe(true); // leaves a pooled connection
    adm.setConfigurations([config('cfg', [hook('/close')], '2')]);
    const before = srv.seen.length;
    const r = rejected(await adm.validate(attrs()));
    expect(r.code).toBe(500);
    expect(client.stats.retries).toBe(1);
    expect(srv.seen.length - before).toBe(2);
    adm.close();
    client.close();
  });
});

describe('dryRun and sideEffects', () => {
  for (const se of ['Unknown', 'Some']) {
    it(`sideEffects ${se}: a dryRun request is rejected without calling the webhook`, async () => {
      const before = srv.seen.length;
      const r = rejected(await once([hook('/allow', { sideEffects: se })], attrs({ dryRun: true })));
      expect(r).toEqual({ code: 400, reason: 'BadRequest', message: `admission webhook "${NAME}" does not support dry run` });
      expect(srv.seen.length).toBe(before);
    });
    it(`sideEffects ${se}: a normal request is sent`, async () => {
      expect((await once([hook('/allow', { sideEffects: se })], attrs({ dryRun: false }))).allowed).toBe(true);
    });
  }
  for (const se of ['None', 'NoneOnDryRun']) {
    it(`sideEffects ${se}: called with dryRun: true`, async () => {
      const before = srv.seen.length;
      expect((await once([hook('/allow', { sideEffects: se })], attrs({ dryRun: true }))).allowed).toBe(true);
      expect(srv.seen[before].review.request.dryRun).toBe(true);
    });
  }
  it('sideEffects missing on a dryRun request fails under the failure policy', async () => {
    const h = hook('/allow');
    delete h.sideEffects;
    expect(rejected(await once([h], attrs({ dryRun: true }))).message).toBe(`Internal error occurred: failed calling webhook "${NAME}": Webhook SideEffects is nil`);
  });
});

describe('selection and aggregation', () => {
  it('calls all matching webhooks in parallel; the first rejection in configuration order wins; warnings from all', async () => {
    const adm = new ValidatingAdmission();
    adm.setConfigurations([
      config('b-second', [hook('/deny-fast', { name: 'fast.example.com' })]),
      config('a-first', [hook('/deny-slow', { name: 'slow.example.com' })]),
    ]);
    const before = srv.seen.length;
    const t0 = Date.now();
    const r = await adm.validate(attrs());
    const ms = Date.now() - t0;
    adm.close();
    expect(r.allowed).toBe(false);
    if (!r.allowed) expect(r.rejection.message).toBe('admission webhook "slow.example.com" denied the request: slow one');
    expect(r.warnings).toEqual(['from slow', 'from fast']);
    expect(srv.seen.slice(before).map((s) => s.path).sort()).toEqual(['/deny-fast', '/deny-slow']);
    expect(ms).toBeLessThan(1000);
  });

  it('only matching webhooks are called (rules, objectSelector, namespaceSelector)', async () => {
    const adm = new ValidatingAdmission();
    adm.setConfigurations([
      config('cfg', [
        hook('/deny', { name: 'other-resource', rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['csinodes'] }] }),
        hook('/deny', { name: 'other-op', rules: [{ operations: ['DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }),
        hook('/deny', { name: 'objsel', objectSelector: { matchLabels: { team: 'b' } } }),
        hook('/deny', { name: 'nssel', namespaceSelector: { matchLabels: { env: 'prod' } } }),
        hook('/allow', { name: 'called' }),
      ]),
    ]);
    const before = srv.seen.length;
    const pvc = attrs({
      namespace: 'dev',
      kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
      resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
      namespaceLabels: (ns) => (ns === 'dev' ? { env: 'dev' } : undefined),
    });
    expect(await adm.validate(pvc)).toEqual({ allowed: true, warnings: [] });
    expect(srv.seen.slice(before).map((s) => s.path)).toEqual(['/allow']);
    // the namespace selector matches a prod namespace
    const r = await adm.validate({ ...pvc, namespace: 'prod', namespaceLabels: { env: 'prod' } });
    expect(r.allowed).toBe(false);
    // a namespace that does not exist: NotFound, as upstream
    const nf = await adm.validate({ ...pvc, namespace: 'gone' });
    expect(nf.allowed === false && nf.rejection).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "gone" not found' });
    adm.close();
  });

  it('a matchCondition FALSE skips; an error under Fail rejects with Forbidden before any call; under Ignore skips', async () => {
    const before = srv.seen.length;
    expect(await once([hook('/deny', { matchConditions: [{ name: 'no', expression: "request.operation == 'DELETE'" }] })])).toEqual({ allowed: true, warnings: [] });
    const r = rejected(
      await once([
        hook('/allow', { name: 'a' }),
        hook('/deny', { name: 'b', matchConditions: [{ name: 'err', expression: 'object.spec.missing == 1' }] }),
      ]),
    );
    expect(r).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: `csidrivers.storage.cluster.io "drv" is forbidden: expression 'object.spec.missing == 1' resulted in error: No such key: missing`,
      details: { name: 'drv', group: 'storage.cluster.io', kind: 'csidrivers' },
    });
    expect(
      await once([hook('/deny', { failurePolicy: 'Ignore', matchConditions: [{ name: 'err', expression: 'object.spec.missing == 1' }] })]),
    ).toEqual({ allowed: true, warnings: [] });
    expect(
      (await once([hook('/deny', { matchConditions: [{ name: 'yes', expression: "authorizer.requestResource.check('create').allowed() && object.metadata.labels.team == 'a'" }] })]))
        .allowed,
    ).toBe(false);
    expect(srv.seen.length - before).toBe(1);
  });

  it('requests about webhook configurations are never sent', async () => {
    const before = srv.seen.length;
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const r = await once(
        [hook('/deny')],
        attrs({
          kind: { group: 'admissionregistration.cluster.io', version: 'v1', kind },
          resource: { group: 'admissionregistration.cluster.io', version: 'v1', resource: `${kind.toLowerCase()}s` },
        }),
      );
      expect(r.allowed).toBe(true);
    }
    expect(srv.seen.length).toBe(before);
  });
});

describe('matchPolicy Equivalent with a mapper', () => {
  // A custom resource served as v1 and v2; the mapper converts by rewriting apiVersion and renaming spec.size (v2) to spec.replicas (v1).
  const GROUP = 'example.cluster.io';
  const gvr = (version: string) => ({ group: GROUP, version, resource: 'widgets' });
  const gvk = (version: string) => ({ group: GROUP, version, kind: 'Widget' });
  const mapper = (fail = false) => {
    const calls: string[] = [];
    return {
      calls,
      equivalentResourcesFor: () => [gvr('v1'), gvr('v2')],
      kindFor: (r: { version: string }) => gvk(r.version),
      async convert(objects: readonly unknown[], to: { group: string; version: string; resource: string }): Promise<unknown[]> {
        calls.push(to.version);
        if (fail) throw new Error('conversion webhook for example.cluster.io/v2, Kind=Widget failed: boom');
        return objects.map((o) => {
          const { spec, ...rest } = o as { spec: { size: number } };
          return { ...rest, apiVersion: `${to.group}/${to.version}`, spec: { replicas: spec.size } };
        });
      },
    };
  };
  const widget = (size: number) => ({ apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'w', labels: { team: 'a' } }, spec: { size } });
  const v2Update = () =>
    attrs({ operation: 'UPDATE', kind: gvk('v2'), resource: gvr('v2'), name: 'w', namespace: 'default', object: widget(3), oldObject: widget(1) });
  const v1Only = (path: string, over: Partial<ValidatingWebhook> = {}) =>
    hook(path, { rules: [{ operations: ['*'], apiGroups: [GROUP], apiVersions: ['v1'], resources: ['widgets'] }], ...over });

  it('sends the objects converted to the version the webhook registered for, with the request\'s kind as requestKind', async () => {
    const before = srv.seen.length;
    const m = mapper();
    const adm = new ValidatingAdmission({ equivalentResourceMapper: m });
    // two webhooks at v1 share one conversion; the webhook at v2 gets the request as it came
    const v2 = hook('/allow', { name: 'v2', rules: [{ operations: ['*'], apiGroups: [GROUP], apiVersions: ['v2'], resources: ['widgets'] }] });
    const r = await once([v1Only('/allow', { name: 'a' }), v1Only('/allow', { name: 'b' }), v2], v2Update(), adm);
    expect(r.allowed).toBe(true);
    expect(m.calls).toEqual(['v1']);
    const [a, b, c] = srv.seen.slice(before).map((x) => x.review.request);
    for (const q of [a, b]) {
      expect(q).toMatchObject({
        kind: gvk('v1'),
        resource: gvr('v1'),
        requestKind: gvk('v2'),
        requestResource: gvr('v2'),
        object: { apiVersion: `${GROUP}/v1`, spec: { replicas: 3 } },
        oldObject: { apiVersion: `${GROUP}/v1`, spec: { replicas: 1 } },
      });
    }
    expect(c).toMatchObject({ kind: gvk('v2'), requestKind: gvk('v2'), object: widget(3), oldObject: widget(1) });
  });

  it('matchConditions see the converted object', async () => {
    const cond = [{ name: 'v1-shape', expression: 'has(object.spec.replicas) && object.spec.replicas == 3' }];
    const r = await once([v1Only('/deny', { matchConditions: cond })], v2Update(), new ValidatingAdmission({ equivalentResourceMapper: mapper() }));
    expect(r.allowed).toBe(false);
  });

  it('a failed conversion rejects with 500 InternalError whatever the failure policy, without calling the webhook', async () => {
    const before = srv.seen.length;
    for (const failurePolicy of ['Fail', 'Ignore']) {
      const r = rejected(await once([v1Only('/allow', { failurePolicy })], v2Update(), new ValidatingAdmission({ equivalentResourceMapper: mapper(true) })));
      expect(r).toMatchObject({ code: 500, reason: 'InternalError' });
      expect(r.message).toContain('conversion webhook for example.cluster.io/v2, Kind=Widget failed: boom');
    }
    expect(srv.seen.length).toBe(before);
  });

  it('matchPolicy Exact does not match the other version', async () => {
    const m = mapper();
    expect(await once([v1Only('/deny', { matchPolicy: 'Exact' })], v2Update(), new ValidatingAdmission({ equivalentResourceMapper: m }))).toEqual({ allowed: true, warnings: [] });
    expect(m.calls).toEqual([]);
  });
});

describe('configuration snapshot', () => {
  it('compiles matchConditions once per configuration version, not per request', async () => {
    const adm = new ValidatingAdmission();
    const mc = [{ name: 'c', expression: "request.operation == 'CREATE'" }];
    const c0 = compileStats.expressions;
    adm.setConfigurations([config('cfg', [hook('/allow', { matchConditions: mc })], '5')]);
    for (let i = 0; i < 20; i++) await adm.validate(attrs());
    expect(compileStats.expressions - c0).toBe(1);
    adm.setConfigurations([config('cfg', [hook('/allow', { matchConditions: mc })], '5'), config('other', [], '1')]);
    expect(compileStats.expressions - c0).toBe(1);
    adm.setConfigurations([config('cfg', [hook('/allow', { matchConditions: mc })], '6')]);
    expect(compileStats.expressions - c0).toBe(2);
    adm.close();
  });

  it('a configuration swapped mid-run: every request sees one whole set', async () => {
    const adm = new ValidatingAdmission();
    const setA = [config('x', [hook('/tagA', { name: 'a1' }), hook('/tagA', { name: 'a2' })], 'a'), config('y', [hook('/tagA', { name: 'a3' })], 'a')];
    const setB = [config('x', [hook('/tagB', { name: 'b1' }), hook('/tagB', { name: 'b2' })], 'b'), config('y', [hook('/tagB', { name: 'b3' })], 'b')];
    adm.setConfigurations(setA);
    let flips = 0;
    const flipper = setInterval(() => {
      adm.setConfigurations(++flips % 2 === 0 ? setA : setB);
    }, 3);
    const results: AdmissionResult[] = [];
    try {
      for (let wave = 0; wave < 15; wave++) {
        results.push(...(await Promise.all(Array.from({ length: 8 }, () => adm.validate(attrs())))));
      }
    } finally {
      clearInterval(flipper);
      adm.close();
    }
    expect(flips).toBeGreaterThan(5);
    const tags = new Set<string>();
    for (const r of results) {
      expect(r.allowed).toBe(true);
      expect(r.warnings.length).toBe(3);
      expect(new Set(r.warnings).size).toBe(1);
      tags.add(r.warnings[0]);
    }
    expect([...tags].sort()).toEqual(['A', 'B']);
  });

  it('an in-flight request finishes with the set it started with', async () => {
    const adm = new ValidatingAdmission();
    adm.setConfigurations([config('cfg', [hook('/deny-slow')])]);
    const p = adm.validate(attrs());
    adm.setConfigurations([]);
    expect((await p).allowed).toBe(false);
    expect((await adm.validate(attrs())).allowed).toBe(true);
    adm.close();
  });
});

describe('connection reuse', () => {
  it('many calls reuse a few connections (no TLS handshake per request)', async () => {
    const client = new WebhookClient();
    const adm = new ValidatingAdmission({ client });
    adm.setConfigurations([
      config('a', [hook('/allow', { name: 'h1' }), hook('/allow', { name: 'h2' })]),
      config('b', [hook('/allow', { name: 'h3' })]),
    ]);
    const h0 = srv.handshakes;
    const c0 = srv.connections;
    const t0 = Date.now();
    for (let i = 0; i < 100; i++) expect((await adm.validate(attrs())).allowed).toBe(true);
    const seqMs = Date.now() - t0;
    const seqHandshakes = srv.handshakes - h0;
    for (let wave = 0; wave < 20; wave++) {
      const rs = await Promise.all(Array.from({ length: 10 }, () => adm.validate(attrs())));
      for (const r of rs) expect(r.allowed).toBe(true);
    }
    const handshakes = srv.handshakes - h0;
    const connections = srv.connections - c0;
    console.log(
      `connection reuse: 300 sequential webhook calls (100 requests x 3 webhooks) in ${seqMs} ms with ${seqHandshakes} handshakes; ` +
        `+600 calls in 20 waves of 10 concurrent requests: total ${handshakes} TLS handshakes, ${connections} TCP connections, ` +
        `client opened ${client.stats.connections}, retries ${client.stats.retries}, agents ${client.agentCount}`,
    );
    expect(seqHandshakes).toBeLessThanOrEqual(3);
    expect(handshakes).toBeLessThanOrEqual(30);
    expect(client.agentCount).toBe(1);
    adm.close();
    client.close();
  });
});
