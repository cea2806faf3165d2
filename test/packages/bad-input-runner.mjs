// Runs hostile inputs through the installed @clusterspec/artifacts validators, in a consumer project.
// argv[2]: JSON [{ name, subpath, call, input, old? }]; prints one JSON line per case:
// { name, ms, threw?: string, result?: { field, reason, messageChars }[] | null }.
const MB = 1024 * 1024;

const storageClass = () => ({ apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'csi.example.com' });
const nested = (depth, leaf) => {
  let o = leaf;
  for (let i = 0; i < depth; i++) o = { a: o };
  return o;
};
const crdWithSchemaDepth = (depth) => {
  let s = { type: 'string' };
  for (let i = 0; i < depth; i++) s = { type: 'object', properties: { a: s } };
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: s } }],
    },
  };
};

/** The inputs by name: every one is built fresh for each use. */
const inputs = {
  null: () => null,
  number: () => 42,
  string: () => 'StorageClass',
  array: () => [storageClass()],
  undefined: () => undefined,
  valid: () => storageClass(),
  cyclicParameters: () => {
    const o = storageClass();
    o.parameters = { type: 'gp3' };
    o.parameters.self = o;
    return o;
  },
  cyclicUnknownField: () => {
    const o = storageClass();
    o.extra = o;
    return o;
  },
  tenMegabyteName: () => ({ ...storageClass(), metadata: { name: 'x'.repeat(10 * MB) } }),
  tenMegabyteProvisioner: () => ({ ...storageClass(), provisioner: 'x'.repeat(10 * MB) }),
  tenMegabyteReclaimPolicy: () => ({ ...storageClass(), reclaimPolicy: 'x'.repeat(10 * MB) }),
  tenMegabyteLabelValue: () => ({ ...storageClass(), metadata: { name: 'fast', labels: { tier: 'x'.repeat(10 * MB) } } }),
  tenMegabyteConfigMapValue: () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { k: 'x'.repeat(10 * MB) } }),
  deepParameters: () => ({ ...storageClass(), parameters: nested(100_000, 'x') }),
  deepLabels: () => ({ ...storageClass(), metadata: { name: 'fast', labels: nested(100_000, 'x') } }),
  deepUnknownField: () => ({ ...storageClass(), extra: nested(100_000, 'x') }),
  wrongTypes: () => ({ ...storageClass(), provisioner: 5, allowVolumeExpansion: 'yes', mountOptions: 'ro' }),
  crdSchemaDepth100: () => crdWithSchemaDepth(100),
  crdSchemaDepth2000: () => crdWithSchemaDepth(2000),
};

const cases = JSON.parse(process.argv[2]);
for (const c of cases) {
  const mod = await import(`@clusterspec/artifacts/${c.subpath}`);
  const args = [inputs[c.input]()];
  if (c.old) args.push(inputs[c.old]());
  const started = performance.now();
  let line;
  try {
    const result = mod[c.call](...args);
    line = { name: c.name, result: result ?? null };
  } catch (e) {
    line = { name: c.name, threw: String(e).slice(0, 200) };
  }
  line.ms = Math.round(performance.now() - started);
  // Fields, reasons and the messages' sizes: a 10 MB value echoed in a message would make the report itself 10 MB.
  if (Array.isArray(line.result)) line.result = line.result.map((e) => ({ field: e.field, reason: e.reason, messageChars: e.message.length }));
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
