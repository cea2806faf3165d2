// Conversion of custom resources: the ConversionReview answer checks and the per-object rules of
// upstream's webhook converter, table-driven (each case carries its expected result), against a
// WebhookClient whose transport is replaced by the case's answer.
import { describe, expect, it } from 'vitest';
import { WebhookClient, type CallOptions, type WebhookResponse } from '../admission/client.ts';
import type { WebhookClientConfig } from '../admission/types.ts';
import { ApiError } from '../errors/api-error.ts';
import { buildConverter } from './conversion.ts';
import { buildConversionReview, convertedObjectsFromAnswer, gvkText, pickConversionReviewVersion, type ConversionReviewVersion } from './conversion-review.ts';
import type { CustomResourceDefinition } from './types.ts';

type Obj = Record<string, unknown>;
const G = 'stable.example.cluster.io';
const UID = '0b5a4f2e-1d61-4c5e-9d8a-2f0e6f1a7c11';

function answer(body: unknown, status = 200, contentType = 'application/json'): WebhookResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { kind: 'response', status, headers: { 'content-type': contentType }, body: Buffer.from(text) };
}
const review = (response: unknown, apiVersion = 'apiextensions.cluster.io/v1', kind = 'ConversionReview'): Obj => ({ apiVersion, kind, response });

describe('convertedObjectsFromAnswer', () => {
  interface Case {
    name: string;
    version: ConversionReviewVersion;
    res: WebhookResponse;
    want: { objects: unknown[] } | { error: string };
  }
  const cases: Case[] = [
    {
      name: 'v1 success',
      version: 'v1',
      res: answer(review({ uid: UID, result: { status: 'Success' }, convertedObjects: [{ kind: 'A' }] })),
      want: { objects: [{ kind: 'A' }] },
    },
    {
      name: 'v1 wrong uid',
      version: 'v1',
      res: answer(review({ uid: 'other', result: { status: 'Success' }, convertedObjects: [] })),
      want: { error: `expected response.uid="${UID}", got "other"` },
    },
    {
      name: 'v1 missing uid',
      version: 'v1',
      res: answer(review({ result: { status: 'Success' } })),
      want: { error: `expected response.uid="${UID}", got ""` },
    },
    {
      name: 'v1 answered as v1beta1',
      version: 'v1',
      res: answer(review({ uid: UID, result: { status: 'Success' } }, 'apiextensions.cluster.io/v1beta1')),
      want: { error: 'expected webhook response of apiextensions.cluster.io/v1, Kind=ConversionReview, got apiextensions.cluster.io/v1beta1, Kind=ConversionReview' },
    },
    {
      name: 'v1 without response',
      version: 'v1',
      res: answer({ apiVersion: 'apiextensions.cluster.io/v1', kind: 'ConversionReview' }),
      want: { error: 'no response provided' },
    },
    {
      name: 'Failed with a message',
      version: 'v1',
      res: answer(review({ uid: UID, result: { status: 'Failure', message: 'cannot convert spec.hostPort' } })),
      want: { error: 'cannot convert spec.hostPort' },
    },
    {
      name: 'Failed without a message',
      version: 'v1',
      res: answer(review({ uid: UID, result: { status: 'Failure' } })),
      want: { error: "response.result.status was 'Failure', not 'Success'" },
    },
    {
      name: 'no result at all',
      version: 'v1',
      res: answer(review({ uid: UID })),
      want: { error: "response.result.status was '', not 'Success'" },
    },
    {
      name: 'v1beta1 checks neither uid nor type',
      version: 'v1beta1',
      res: answer(review({ uid: 'whatever', result: { status: 'Success' }, convertedObjects: [] }, 'apiextensions.cluster.io/v1')),
      want: { objects: [] },
    },
    {
      name: 'a Status answer with an error code',
      version: 'v1',
      res: answer({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'webhook is down for maintenance', code: 503 }, 503),
      want: { error: 'webhook is down for maintenance' },
    },
    {
      name: 'a 404 text answer',
      version: 'v1',
      res: answer('no handler', 404, 'text/plain'),
      want: { error: 'the server could not find the requested resource' },
    },
    {
      name: 'an empty 200 answer',
      version: 'v1',
      res: answer('', 200),
      want: { error: '0-length response with status code: 200 and content type: application/json' },
    },
    {
      name: 'an answer without kind',
      version: 'v1',
      res: answer('{"response":{}}'),
      want: { error: `Object 'Kind' is missing in '{"response":{}}'` },
    },
    {
      name: 'not JSON',
      version: 'v1',
      res: answer('<html>'),
      want: { error: "couldn't get version/kind; json parse error: Unexpected token '<', \"<html>\" is not valid JSON" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = convertedObjectsFromAnswer(c.version, UID, c.res);
      if ('error' in c.want) expect(got).toEqual({ ok: false, message: c.want.error });
      else expect(got).toEqual({ ok: true, objects: c.want.objects });
    });
  }
});

describe('review versions and texts', () => {
  it('takes the first supported version in the CRD order', () => {
    expect(pickConversionReviewVersion(['v2', 'v1beta1', 'v1'])).toBe('v1beta1');
    expect(pickConversionReviewVersion(['v1', 'v1beta1'])).toBe('v1');
    expect(pickConversionReviewVersion(['v2'])).toBeUndefined();
    expect(pickConversionReviewVersion(undefined)).toBeUndefined();
  });
  it('builds the review request', () => {
    expect(buildConversionReview('v1beta1', UID, `${G}/v2`, [{ kind: 'Widget' }])).toEqual({
      kind: 'ConversionReview',
      apiVersion: 'apiextensions.cluster.io/v1beta1',
      request: { uid: UID, desiredAPIVersion: `${G}/v2`, objects: [{ kind: 'Widget' }] },
    });
  });
  it('prints group/version/kind as Go does', () => {
    expect(gvkText(`${G}/v1`, 'Widget')).toBe(`${G}/v1, Kind=Widget`);
    expect(gvkText('v1', 'Pod')).toBe('/v1, Kind=Pod');
    expect(gvkText('a/b/c', 'X')).toBe('/, Kind=X');
  });
});

// ------------------------------------------------------------------ the converter

/** A WebhookClient whose transport answers with `reply(review)` and records what was sent. */
class FakeClient extends WebhookClient {
  sent: Obj[] = [];
  constructor(private readonly reply: (review: Obj) => WebhookResponse | { kind: 'error'; message: string }) {
    super();
  }
  override async post(_cc: WebhookClientConfig | undefined, body: Buffer, timeoutSeconds: number, _opts: CallOptions = {}): Promise<WebhookResponse | { kind: 'error'; message: string }> {
    expect(timeoutSeconds).toBe(30);
    const r = JSON.parse(body.toString('utf8')) as Obj;
    this.sent.push(r);
    return this.reply(r);
  }
}

function crd(conversionReviewVersions: string[] = ['v1']): CustomResourceDefinition {
  return {
    metadata: { name: `widgets.${G}` },
    spec: {
      group: G,
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [
        { name: 'v1', served: true, storage: false },
        { name: 'v2', served: true, storage: true },
      ],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://127.0.0.1:1/convert' }, conversionReviewVersions } },
    },
  };
}

function widget(name: string, version = 'v1', extra: Obj = {}): Obj {
  return {
    apiVersion: `${G}/${version}`,
    kind: 'Widget',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, generation: 1, labels: { app: 'web' } },
    spec: version === 'v1' ? { hostPort: 'example.com:80' } : { host: 'example.com', port: 80 },
    ...extra,
  };
}

/** The webhook's honest conversion of one object (v1 hostPort ↔ v2 host + port). */
function convertOne(o: Obj, desired: string): Obj {
  const spec = (o.spec ?? {}) as Obj;
  let out: Obj;
  if (desired.endsWith('/v2')) {
    const [host, port] = String(spec.hostPort).split(':');
    out = { ...o, spec: { host, port: Number(port) } };
  } else out = { ...o, spec: { hostPort: `${String(spec.host)}:${String(spec.port)}` } };
  return { ...out, apiVersion: desired };
}

/** A webhook answering Success with `mutate` applied to each honestly converted object. */
function webhook(mutate: (converted: Obj[], req: Obj) => unknown[] = (c) => c, respUid?: string) {
  return (r: Obj): WebhookResponse => {
    const req = r.request as { uid: string; desiredAPIVersion: string; objects: Obj[] };
    const converted = req.objects.map((o) => convertOne(o, req.desiredAPIVersion));
    return answer(review({ uid: respUid ?? req.uid, result: { status: 'Success' }, convertedObjects: mutate(converted, req) }));
  };
}

const SUBJ = `conversion webhook for ${G}/v1, Kind=Widget`;

describe('WebhookConverter', () => {
  interface Case {
    name: string;
    reply: (review: Obj) => WebhookResponse | { kind: 'error'; message: string };
    objects: Obj[];
    list?: boolean;
    want: { error: string } | { objects: Obj[]; sent: number };
    versions?: string[];
  }
  const v2 = (name: string, metaExtra: Obj = {}): Obj => {
    const w = widget(name, 'v2');
    Object.assign(w.metadata as Obj, metaExtra);
    return w;
  };
  const cases: Case[] = [
    { name: 'converts one object', reply: webhook(), objects: [widget('a')], want: { objects: [v2('a')], sent: 1 } },
    {
      name: 'objects at the desired version are not sent',
      reply: webhook(),
      objects: [widget('a', 'v2'), widget('b'), widget('c', 'v2')],
      list: true,
      want: { objects: [v2('a'), v2('b'), v2('c')], sent: 1 },
    },
    { name: 'nothing to convert: no call', reply: () => ({ kind: 'error', message: 'must not be called' }), objects: [widget('a', 'v2')], want: { objects: [v2('a')], sent: 0 } },
    {
      name: 'labels and annotations from the webhook are taken',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), labels: { app: 'web', converted: 'yes' }, annotations: { note: 'v2' } } }))),
      objects: [widget('a')],
      want: { objects: [v2('a', { labels: { app: 'web', converted: 'yes' }, annotations: { note: 'v2' } })], sent: 1 },
    },
    {
      name: 'other metadata changes are undone',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), generation: 7, finalizers: ['x/y'] } }))),
      objects: [widget('a')],
      want: { objects: [v2('a')], sent: 1 },
    },
    {
      name: 'labels the webhook leaves out are removed',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { name: 'a', namespace: 'ns', uid: 'uid-a' } }))),
      objects: [widget('a')],
      want: { objects: [(() => { const w = v2('a'); delete (w.metadata as Obj).labels; return w; })()], sent: 1 },
    },
    { name: 'wrong uid', reply: webhook((c) => c, 'not-the-uid'), objects: [widget('a')], want: { error: `${SUBJ} failed: expected response.uid="<uid>", got "not-the-uid"` } },
    { name: 'wrong count', reply: webhook((c) => [...c, ...c]), objects: [widget('a')], want: { error: `${SUBJ} returned 2 objects, expected 1` } },
    { name: 'no objects', reply: webhook(() => []), objects: [widget('a'), widget('b')], list: true, want: { error: `${SUBJ} returned 0 objects, expected 2` } },
    {
      name: 'Failed status',
      reply: (r) => answer(review({ uid: (r.request as Obj).uid, result: { status: 'Failure', message: 'port is not a number' } })),
      objects: [widget('a')],
      want: { error: `${SUBJ} failed: port is not a number` },
    },
    { name: 'transport failure', reply: () => ({ kind: 'error', message: 'Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused' }), objects: [widget('a')], want: { error: `${SUBJ} failed: Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused` } },
    {
      name: 'single: wrong group/version',
      reply: webhook((c) => c.map((o) => ({ ...o, apiVersion: `${G}/v1` }))),
      objects: [widget('a')],
      want: { error: `${SUBJ} returned invalid object at index 0: invalid groupVersion (expected ${G}/v2, received ${G}/v1)` },
    },
    { name: 'single: changed kind', reply: webhook((c) => c.map((o) => ({ ...o, kind: 'Gadget' }))), objects: [widget('a')], want: { error: `${SUBJ} returned invalid object at index 0: invalid kind (expected Widget, received Gadget)` } },
    {
      name: 'single: changed name',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), name: 'renamed' } }))),
      objects: [widget('a')],
      want: { error: `${SUBJ} returned invalid object: must have the same name: a != renamed` },
    },
    {
      name: 'single: changed namespace',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), namespace: 'other' } }))),
      objects: [widget('a')],
      want: { error: `${SUBJ} returned invalid object: must have the same namespace: ns != other` },
    },
    {
      name: 'single: changed uid',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), uid: 'u2' } }))),
      objects: [widget('a')],
      want: { error: `${SUBJ} returned invalid object: must have the same UID: uid-a != u2` },
    },
    { name: 'single: no kind', reply: webhook(() => [{ apiVersion: `${G}/v2` }]), objects: [widget('a')], want: { error: `Object 'Kind' is missing in '{"apiVersion":"${G}/v2"}'` } },
    {
      name: 'single: no metadata',
      reply: webhook(() => [{ apiVersion: `${G}/v2`, kind: 'Widget' }]),
      objects: [(() => { const w = widget('a'); w.metadata = {}; return w; })()],
      want: { error: `${SUBJ} returned invalid metadata: missing metadata in converted object` },
    },
    {
      name: 'single: an invalid label',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), labels: { app: 'not a value!' } } }))),
      objects: [widget('a')],
      want: { error: `${SUBJ} returned invalid metadata: metadata.labels: Invalid value: "not a value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')` },
    },
    {
      name: 'single: a label that is no string',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), labels: { app: 3 } } }))),
      objects: [widget('a')],
      want: { error: `${SUBJ} returned invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object` },
    },
    {
      name: 'single: annotations that are no map',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), annotations: ['a'] } }))),
      objects: [widget('a')],
      want: { error: `${SUBJ} returned invalid metadata: invalid metadata.annotations of type []interface {} in converted object` },
    },
    {
      name: 'list: wrong group/version counts from 1',
      reply: webhook((c) => c.map((o, i) => (i === 1 ? { ...o, apiVersion: `${G}/v3` } : o))),
      objects: [widget('a'), widget('b')],
      list: true,
      want: { error: `${SUBJ} returned invalid converted object at index 2: invalid groupVersion (expected ${G}/v2, received ${G}/v3)` },
    },
    {
      name: 'list: changed name',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), name: 'x' } }))),
      objects: [widget('a')],
      list: true,
      want: { error: `${SUBJ} returned invalid converted object at index 1: must have the same name: a != x` },
    },
    { name: 'list: undecodable object counts from 0', reply: webhook(() => ['text']), objects: [widget('a')], list: true, want: { error: `${SUBJ} returned invalid converted object at index 0: json: cannot unmarshal string into Go value of type map[string]interface {}` } },
    {
      name: 'list: invalid metadata',
      reply: webhook((c) => c.map((o) => ({ ...o, metadata: 'x' }))),
      objects: [(() => { const w = widget('a'); (w.metadata as Obj).name = ''; (w.metadata as Obj).namespace = ''; (w.metadata as Obj).uid = ''; return w; })()],
      list: true,
      want: { error: `${SUBJ} returned invalid metadata in object at index 1: invalid metadata of type string in converted object` },
    },
    { name: 'no supported review version', reply: webhook(), objects: [widget('a')], versions: ['v2'], want: { error: 'no supported conversion review versions' } },
    { name: 'v1beta1 review when listed first', reply: webhook(), objects: [widget('a')], versions: ['v1beta1', 'v1'], want: { objects: [v2('a')], sent: 1 } },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const client = new FakeClient(c.reply);
      const conv = buildConverter(crd(c.versions), { client });
      const before = JSON.stringify(c.objects);
      const run = conv.convert(c.objects, `${G}/v2`, { list: c.list });
      if ('error' in c.want) {
        const err = await run.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ApiError);
        const e = err as ApiError;
        const uid = client.sent[0] ? String((client.sent[0].request as Obj).uid) : '';
        expect(e.message).toBe(c.want.error.replace('<uid>', uid));
        expect(e.toStatus()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: e.message, code: 500 });
      } else {
        expect(await run).toEqual(c.want.objects);
        expect(client.sent.length).toBe(c.want.sent);
        if (c.want.sent) {
          const r = client.sent[0];
          expect(r.apiVersion).toBe(`apiextensions.cluster.io/${c.versions?.[0] ?? 'v1'}`);
          const req = r.request as { desiredAPIVersion: string; objects: Obj[] };
          expect(req.desiredAPIVersion).toBe(`${G}/v2`);
          expect(req.objects.every((o) => o.apiVersion !== `${G}/v2`)).toBe(true);
        }
      }
      expect(JSON.stringify(c.objects)).toBe(before); // inputs untouched
    });
  }

  it('rejects versions the CRD does not define', async () => {
    const conv = buildConverter(crd(), { client: new FakeClient(webhook()) });
    await expect(conv.convert([widget('a')], `${G}/v9`)).rejects.toThrow(`request to convert CR to an invalid group/version: ${G}/v9`);
    await expect(conv.convert([widget('a', 'v0')], `${G}/v2`)).rejects.toThrow(`request to convert CR from an invalid group/version: ${G}/v0`);
  });
});

describe('NoneConverter', () => {
  it('changes only apiVersion and leaves the input alone', async () => {
    const none = { ...crd(), spec: { ...crd().spec, conversion: { strategy: 'None' } } };
    const conv = buildConverter(none, { client: new FakeClient(() => ({ kind: 'error', message: 'never called' })) });
    expect(conv.strategy).toBe('None');
    const a = widget('a');
    const [out] = await conv.convert([a], `${G}/v2`);
    expect(out).toEqual({ ...a, apiVersion: `${G}/v2` });
    expect(a.apiVersion).toBe(`${G}/v1`);
  });
});
