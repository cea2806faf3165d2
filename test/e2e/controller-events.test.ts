// Which Events the server's own controllers record, against a real server (memory storage), read
// back over HTTP and with the real kubectl. Upstream's controllers were read for this (see
// runtime/events/README.md): only the garbage collector records Events among them. The CRD naming
// and establishing controllers (apiextensions-apiserver pkg/controller/status, establish), the
// storage version migrator (kubernetes pkg/controller/storageversionmigrator) and the webhook
// admission plugin (apiserver pkg/admission/plugin/webhook) record none: they report through
// status conditions, or only log. So each case below triggers the situation and checks for the
// events upstream records there. The garbage collector's warning is triggered last and must
// arrive: it shows the recorder path works, so an empty answer for the others says something.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, TestServer } from './harness.ts';
import { KUBECTL, runKubectl, type KubectlResult } from './kubectl.ts';

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl parts of the controller Events e2e tests');

const GROUP = 'ce.cluster.io';
const CRDS = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';
const SVMS = '/apis/storagemigration.cluster.io/v1alpha1/storageversionmigrations';
const VWCS = '/apis/admissionregistration.cluster.io/v1/validatingwebhookconfigurations';
const NS_OWNER = 'ce-owner';
const NS_DEPENDENT = 'ce-dependent';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface EventItem {
  metadata: { name: string; namespace: string };
  involvedObject: { apiVersion?: string; kind: string; name: string; namespace?: string; uid?: string };
  type: string;
  reason: string;
  message: string;
  source?: { component?: string };
  count?: number;
}

/** What a test reads of an event: enough to tell upstream's recorder apart. */
interface ExpectedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  component: string;
  message: string;
}

function crd(plural: string, kind: string, listKind: string): object {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } };
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: { group: GROUP, scope: 'Namespaced', names: { plural, singular: plural.slice(0, -1), kind, listKind }, versions: [{ name: 'v1', served: true, storage: true, schema }] },
  };
}

function svm(name: string, group: string, resource: string): object {
  return { apiVersion: 'storagemigration.cluster.io/v1alpha1', kind: 'StorageVersionMigration', metadata: { name }, spec: { resource: { group, version: 'v1', resource } } };
}

function conditionsOf(json: { status?: { conditions?: Condition[] } } | undefined): Record<string, Condition> {
  return Object.fromEntries((json?.status?.conditions ?? []).map((c) => [c.type, c]));
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * One situation each controller meets, what upstream shows instead of (or as) an Event, and the
 * Events upstream records about the object. `trigger` makes it happen; `settled` answers once the
 * controller has acted (the state upstream reaches), with what to check of it.
 */
interface Case {
  what: string;
  /** The object the events would be about (involvedObject.name) and its kind for kubectl. */
  involved: { kind: string; name: string };
  /** `ctx` carries what a trigger learns that its expected events name (an owner's uid). */
  trigger: (s: TestServer, ctx: TriggerContext) => Promise<void>;
  settled: (s: TestServer) => Promise<boolean>;
  events: (ctx: TriggerContext) => ExpectedEvent[];
}

interface TriggerContext {
  ownerUid: string;
}

const CASES: Case[] = [
  {
    // naming_controller.go / establishing_controller.go: conditions NamesAccepted and Established only
    what: 'a CRD whose names are accepted (NamesAccepted True, Established True)',
    involved: { kind: 'customresourcedefinition', name: `widgets.${GROUP}` },
    trigger: async (s) => {
      const r = await s.post(CRDS, crd('widgets', 'Widget', 'WidgetList'));
      expect(r.status, r.text).toBe(201);
    },
    settled: async (s) => {
      const c = conditionsOf((await s.get(`${CRDS}/widgets.${GROUP}`)).json);
      return c.NamesAccepted?.status === 'True' && c.NamesAccepted.reason === 'NoConflicts' && c.Established?.status === 'True';
    },
    events: () => [],
  },
  {
    what: 'a CRD whose kind conflicts with another CRD of the group (NamesAccepted False KindConflict)',
    involved: { kind: 'customresourcedefinition', name: `gizmos.${GROUP}` },
    trigger: async (s) => {
      // after widgets is accepted, so the conflict is gizmos'
      await eventually(async () => (await CASES[0].settled(s)) || undefined);
      const r = await s.post(CRDS, crd('gizmos', 'Widget', 'GizmoList'));
      expect(r.status, r.text).toBe(201);
    },
    settled: async (s) => {
      const c = conditionsOf((await s.get(`${CRDS}/gizmos.${GROUP}`)).json);
      return c.NamesAccepted?.status === 'False' && c.NamesAccepted.reason === 'KindConflict' && c.Established?.status === 'False';
    },
    events: () => [],
  },
  {
    // storageversionmigrator.go (and resourceversion.go, migrationrunner.go): conditions Running, Succeeded, Failed only
    what: 'a StorageVersionMigration that runs and succeeds',
    involved: { kind: 'storageversionmigration', name: 'ce-svm-configmaps' },
    trigger: async (s) => {
      const r = await s.post(SVMS, svm('ce-svm-configmaps', '', 'configmaps'));
      expect(r.status, r.text).toBe(201);
    },
    settled: async (s) => {
      const c = conditionsOf((await s.get(`${SVMS}/ce-svm-configmaps`)).json);
      return c.Succeeded?.status === 'True' && c.Succeeded.reason === 'StorageVersionMigrationSucceeded' && c.Running?.status === 'False';
    },
    events: () => [],
  },
  {
    what: 'a StorageVersionMigration of an unknown resource, which fails',
    involved: { kind: 'storageversionmigration', name: 'ce-svm-missing' },
    trigger: async (s) => {
      const r = await s.post(SVMS, svm('ce-svm-missing', 'nothing.cluster.io', 'things'));
      expect(r.status, r.text).toBe(201);
    },
    settled: async (s) => {
      const c = conditionsOf((await s.get(`${SVMS}/ce-svm-missing`)).json);
      return c.Failed?.status === 'True' && c.Failed.reason === 'StorageVersionMigrationFailed';
    },
    events: () => [],
  },
  {
    // validating/dispatcher.go: "Failed calling webhook, failing closed/open" go to the log (and the
    // refusal to the client) only
    what: 'a webhook configuration whose webhook cannot be reached (failurePolicy Fail refuses the write, then Ignore lets it through)',
    involved: { kind: 'validatingwebhookconfiguration', name: 'ce-unreachable' },
    trigger: async (s) => {
      const port = await closedPort();
      const probe = { metadata: { name: 'ce-through-ignored-webhook', labels: { 'ce.cluster.io/probe': 'webhook' } }, data: { a: 'b' } };
      const r = await s.post(VWCS, {
        apiVersion: 'admissionregistration.cluster.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'ce-unreachable' },
        webhooks: [
          {
            name: 'unreachable.ce.cluster.io',
            clientConfig: { url: `https://127.0.0.1:${port}/validate` },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
            objectSelector: { matchLabels: { 'ce.cluster.io/probe': 'webhook' } },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
            timeoutSeconds: 2,
          },
        ],
      });
      expect(r.status, r.text).toBe(201);
      // the webhook is called (and fails): the write is refused
      const refused = await s.post(`/api/v1/namespaces/${NS_OWNER}/configmaps`, probe);
      expect(refused.status, refused.text).toBe(500);
      expect(refused.json.message).toContain('failed calling webhook "unreachable.ce.cluster.io"');
      const vwc = r.json as { webhooks: { failurePolicy: string }[] };
      vwc.webhooks[0].failurePolicy = 'Ignore';
      const put = await s.request('PUT', `${VWCS}/ce-unreachable`, { body: vwc });
      expect(put.status, put.text).toBe(200);
      const cm = await s.post(`/api/v1/namespaces/${NS_OWNER}/configmaps`, probe);
      expect(cm.status, cm.text).toBe(201);
    },
    settled: async (s) => (await s.get(`/api/v1/namespaces/${NS_OWNER}/configmaps/ce-through-ignored-webhook`)).status === 200,
    events: () => [],
  },
];

/** The garbage collector's warning (upstream garbagecollector/graph_builder.go), triggered last. */
const GC_CASE: Case = {
  what: 'a dependent naming a namespaced owner in another namespace (the garbage collector warns, then collects it)',
  involved: { kind: 'configmap', name: 'ce-cross-namespace' },
  trigger: async (s, ctx) => {
    const owner = await s.post(`/api/v1/namespaces/${NS_OWNER}/configmaps`, { metadata: { name: 'ce-owner' } });
    expect(owner.status, owner.text).toBe(201);
    ctx.ownerUid = owner.json.metadata.uid as string;
    const dep = await s.post(`/api/v1/namespaces/${NS_DEPENDENT}/configmaps`, {
      metadata: { name: 'ce-cross-namespace', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ce-owner', uid: ctx.ownerUid }] },
    });
    expect(dep.status, dep.text).toBe(201);
  },
  settled: async (s) => (await s.get(`/api/v1/namespaces/${NS_DEPENDENT}/configmaps/ce-cross-namespace`)).status === 404,
  events: ({ ownerUid }) => [
    {
      type: 'Warning',
      reason: 'OwnerRefInvalidNamespace',
      component: 'garbage-collector-controller',
      message: `ownerRef [v1/ConfigMap, namespace: ${NS_DEPENDENT}, name: ce-owner, uid: ${ownerUid}] does not exist in namespace "${NS_DEPENDENT}"`,
    },
  ],
};

function summary(e: EventItem): ExpectedEvent {
  return { type: e.type as ExpectedEvent['type'], reason: e.reason, component: e.source?.component ?? '', message: e.message };
}

async function eventsAbout(s: TestServer, name: string): Promise<EventItem[]> {
  const r = await s.get(`/api/v1/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${name}`)}`);
  expect(r.status, r.text).toBe(200);
  return r.json.items as EventItem[];
}

describe('Events recorded by the server\'s own controllers, as upstream\'s', () => {
  let s: TestServer;
  const ctx: TriggerContext = { ownerUid: '' };
  let work: string;
  const kubectl = (...args: string[]): Promise<KubectlResult> => runKubectl(s.kubeconfig, join(work, 'cache'), args);

  beforeAll(async () => {
    s = await TestServer.start('memory');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-controller-events-'));
    for (const ns of [NS_OWNER, NS_DEPENDENT]) expect((await s.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    for (const c of CASES) await c.trigger(s, ctx);
    for (const c of CASES) await eventually(async () => (await c.settled(s)) || undefined, 20_000, 100);
    // Last: the garbage collector's warning, which must come.
    await GC_CASE.trigger(s, ctx);
    await eventually(async () => (await GC_CASE.settled(s)) || undefined, 20_000, 100);
    await eventually(async () => (await eventsAbout(s, GC_CASE.involved.name)).length > 0 || undefined, 10_000, 100);
  }, 60_000);

  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it.each([...CASES, GC_CASE].map((c) => [c.what, c] as const))('%s: the events upstream records, over HTTP', async (_what, c) => {
    const got = (await eventsAbout(s, c.involved.name)).map(summary);
    expect(got).toEqual(c.events(ctx));
  });

  it('the garbage collector\'s event names the object as upstream\'s recorder does', async () => {
    const [e] = await eventsAbout(s, GC_CASE.involved.name);
    expect(e.metadata.namespace).toBe(NS_DEPENDENT);
    expect(e.metadata.name).toMatch(/^ce-cross-namespace\.[0-9a-f]+$/);
    expect(e.involvedObject).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS_DEPENDENT, name: 'ce-cross-namespace' });
    expect(e.count).toBe(1);
  });

  it('no controller but the garbage collector recorded any event', async () => {
    const r = await s.get('/api/v1/events');
    expect(r.status).toBe(200);
    const components = new Set((r.json.items as EventItem[]).map((e) => e.source?.component ?? ''));
    expect([...components]).toEqual(['garbage-collector-controller']);
  });

  (KUBECTL ? it : it.skip).each([...CASES, GC_CASE].map((c) => [c.what, c] as const))('%s: kubectl get events --field-selector involvedObject.name', async (_what, c) => {
    const r = await kubectl('get', 'events', '-A', '--field-selector', `involvedObject.name=${c.involved.name}`, '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const items = (JSON.parse(r.stdout) as { items: EventItem[] }).items;
    expect(items.map(summary)).toEqual(c.events(ctx));
  });

  (KUBECTL ? it : it.skip).each(CASES.map((c) => [c.what, c] as const))('%s: kubectl describe shows no events', async (_what, c) => {
    const r = await kubectl('describe', c.involved.kind, c.involved.name);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Events:\s+<none>$/m);
  });

  (KUBECTL ? it : it.skip)('kubectl describe of the conflicting CRD shows the reason in its conditions', async () => {
    const r = await kubectl('describe', 'customresourcedefinition', `gizmos.${GROUP}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Reason:\s+KindConflict/);
  });
});
