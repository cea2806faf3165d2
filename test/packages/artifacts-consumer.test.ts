// The artifacts and types packages as a consumer gets them: built, packed with npm pack, installed from
// the tarballs into a fresh project, then imported by plain Node (ESM and require), type-checked by tsc
// under three module resolutions, bundled by esbuild, checked by @arethetypeswrong/cli, and given
// hostile input.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { parse } from 'yaml';
import { buildAndPack, consumerProject, removeAll, ROOT, tarballs } from '../../generators/packages/pack.ts';
import { TS_CONSUMER, withoutDirectives } from './consumer-source.ts';

const KIND_SUBPATH = 'storage.cluster.io/v1/StorageClass';
const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const attw = join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');

let packed: string;
let consumer: string;

const run = (file: string, args: string[] = []) =>
  spawnSync(process.execPath, [file, ...args], { cwd: consumer, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });

beforeAll(async () => {
  packed = await buildAndPack(['types', 'artifacts']);
  consumer = consumerProject(tarballs(packed));
}, 110_000);

afterAll(() => removeAll(packed, consumer));

describe('installed from the tarballs', () => {
  it('brings the two packages and nothing else (RE2 and CEL are bundled into the chunks, their licences beside them), nothing with an install step', () => {
    const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const installed = Object.keys(lock.packages).filter((p) => p).map((p) => p.replace(/^node_modules\//, '')).sort();
    expect(installed).toEqual(['@clusterspec/artifacts', '@clusterspec/types']);
    expect(Object.values(lock.packages).filter((p) => p.hasInstallScript)).toEqual([]);
    const artifacts = JSON.parse(readFileSync(join(consumer, 'node_modules/@clusterspec/artifacts/package.json'), 'utf8')) as { dependencies?: unknown };
    expect(artifacts.dependencies).toBeUndefined();
    const licences = readFileSync(join(consumer, 'node_modules/@clusterspec/artifacts/dist/THIRD-PARTY-LICENSES.txt'), 'utf8');
    for (const name of ['@bufbuild/re2', '@marcbachmann/cel-js']) expect(licences).toContain(name);
    const types = JSON.parse(readFileSync(join(consumer, 'node_modules/@clusterspec/types/package.json'), 'utf8')) as { dependencies?: unknown };
    expect(types.dependencies).toBeUndefined();
    const typeFiles = readdirSync(join(consumer, 'node_modules/@clusterspec/types/dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    for (const f of typeFiles) expect(readFileSync(join(consumer, 'node_modules/@clusterspec/types/dist', f), 'utf8')).toMatch(/^export \{\};$/m);
  });

  it('plain Node imports one kind by subpath (and by group-version) and validates a good and a bad object', () => {
    writeFileSync(
      join(consumer, 'esm.mjs'),
      `import { validate } from '@clusterspec/artifacts/${KIND_SUBPATH}';
import { StorageClass } from '@clusterspec/artifacts/storage.cluster.io/v1';
const good = { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'csi.example.com' };
const bad = { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'Fast!' }, reclaimPolicy: 'Sometimes' };
console.log(JSON.stringify({ good: validate(good), bad: validate(bad).map((e) => e.field).sort(), viaGroup: StorageClass.validate(bad).length }));
`,
    );
    const r = run('esm.mjs');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ good: [], bad: ['metadata.name', 'provisioner', 'reclaimPolicy'], viaGroup: 3 });
  });

  it('CommonJS: require() of a kind subpath works on this Node (>= 20.19, require of ESM)', () => {
    writeFileSync(
      join(consumer, 'cjs.cjs'),
      `const { validate } = require('@clusterspec/artifacts/${KIND_SUBPATH}');
console.log(JSON.stringify(validate({ apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast' } }).map((e) => e.field)));
`,
    );
    const r = run('cjs.cjs');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['provisioner']);
  });

  it('the asset subpaths resolve: OpenAPI v2 and v3 per group-version, CRD manifests, JSON Schemas (plain and strict), package.json', () => {
    const subpaths = {
      'openapi/v2/swagger.json': 'swagger',
      'openapi/v2/apis/storage.cluster.io/v1.json': 'swagger',
      'openapi/v2/api/v1.json': 'swagger',
      'openapi/v3/apis/storage.cluster.io/v1.json': 'openapi',
      'openapi/v3/api/v1.json': 'openapi',
      'jsonschema/storage.cluster.io/storageclass_v1.json': '$schema',
      'jsonschema-strict/storage.cluster.io/storageclass_v1.json': '$schema',
      'jsonschema/configmap_v1.json': '$schema',
      'package.json': 'name',
    };
    writeFileSync(
      join(consumer, 'assets.mjs'),
      `import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const keys = {};
for (const [p, key] of Object.entries(${JSON.stringify(subpaths)})) {
  keys[p] = key in JSON.parse(readFileSync(fileURLToPath(import.meta.resolve('@clusterspec/artifacts/' + p)), 'utf8'));
}
const crd = readFileSync(fileURLToPath(import.meta.resolve('@clusterspec/artifacts/crds/storageclasses.storage.crd.cluster.io.yaml')), 'utf8');
console.log(JSON.stringify({ keys, crd: /kind: CustomResourceDefinition/.test(crd) }));
`,
    );
    const r = run('assets.mjs');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ keys: Object.fromEntries(Object.keys(subpaths).map((p) => [p, true])), crd: true });
  });
});

describe('TypeScript consumers', () => {
  const resolutions = [
    { name: 'node16', module: 'node16', moduleResolution: 'node16' },
    { name: 'nodenext', module: 'nodenext', moduleResolution: 'nodenext' },
    { name: 'bundler', module: 'esnext', moduleResolution: 'bundler' },
  ];
  it.each(resolutions)('tsc --noEmit under moduleResolution $name: the consumer checks, and each @ts-expect-error line fails without its directive', ({ name, module, moduleResolution }) => {
    const dir = join(consumer, `ts-${name}`);
    mkdirSync(dir, { recursive: true });
    const stripped = withoutDirectives(TS_CONSUMER);
    writeFileSync(join(dir, 'consumer.ts'), TS_CONSUMER);
    writeFileSync(join(dir, 'stripped.ts'), stripped.source);
    const compilerOptions = { module, moduleResolution, target: 'es2022', lib: ['es2022'], strict: true, noEmit: true, skipLibCheck: false, types: [] };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts', 'stripped.ts'] }));
    const r = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
    const errors = r.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(errors.filter((l) => !l.startsWith('stripped.ts') && !l.startsWith(`ts-${name}/stripped.ts`))).toEqual([]);
    const failing = [...new Set(errors.map((l) => Number(/stripped\.ts\((\d+),/.exec(l)?.[1])))].sort((a, b) => a - b);
    expect(failing).toEqual(stripped.failingLines);
  });
});

describe('bundled by esbuild', () => {
  let bundle = '';
  beforeAll(async () => {
    writeFileSync(join(consumer, 'bundle-entry.mjs'), `import { validate } from '@clusterspec/artifacts/${KIND_SUBPATH}';\nconsole.log(JSON.stringify(validate({})));\n`);
    const result = await build({ entryPoints: [join(consumer, 'bundle-entry.mjs')], absWorkingDir: consumer, bundle: true, minify: true, format: 'esm', platform: 'node', write: false, logLevel: 'silent' });
    bundle = result.outputFiles[0].text;
    writeFileSync(join(consumer, 'bundle.mjs'), bundle);
    console.log(`esbuild bundle of one kind (${KIND_SUBPATH}): ${(bundle.length / 1024).toFixed(0)} kB minified, ${(gzipSync(bundle).length / 1024).toFixed(0)} kB gzipped`);
  });

  it('the bundle runs and holds the imported kind', () => {
    expect(JSON.parse(run('bundle.mjs').stdout).map((e: { field: string }) => e.field)).toContain('provisioner');
    expect(kindsInBundle(bundle)).toContain('StorageClass');
  });

  it('gives the same errors bundled, installed and in the repository on every PersistentVolume fixture, and keeps the CEL libraries (a module imported for its effect)', async () => {
    const dir = join(ROOT, 'test/fixtures/objects/persistentvolume');
    const objects = readdirSync(dir).map((f) => (parse(readFileSync(join(dir, f), 'utf8')) as { object?: unknown }).object).filter((o) => o !== undefined);
    writeFileSync(join(consumer, 'pv-fixtures.json'), JSON.stringify(objects));
    writeFileSync(
      join(consumer, 'pv-entry.mjs'),
      `import { readFileSync } from 'node:fs';
import { validate } from '@clusterspec/artifacts/v1/PersistentVolume';
const objects = JSON.parse(readFileSync(new URL('./pv-fixtures.json', import.meta.url), 'utf8'));
console.log(JSON.stringify(objects.map((o) => validate(o))));
`,
    );
    await build({ entryPoints: [join(consumer, 'pv-entry.mjs')], absWorkingDir: consumer, bundle: true, format: 'esm', platform: 'node', outfile: join(consumer, 'pv-bundle.mjs'), logLevel: 'silent' });
    const installed = JSON.parse(run('pv-entry.mjs').stdout) as unknown[][];
    const bundled = JSON.parse(run('pv-bundle.mjs').stdout) as unknown[][];
    expect(installed.flat().length).toBeGreaterThan(0);
    expect(bundled).toEqual(installed);
    // and the same as the repository's own module: the package's chunks dropped nothing (the CEL libraries among them)
    const { validate } = await import('../../out/validators/persistentvolume.ts');
    expect(installed).toEqual(JSON.parse(JSON.stringify(objects.map((o) => validate(o)))));
    // runtime/cel/libraries installs the platform libraries when imported; "sideEffects": false would let a bundler drop it.
    expect(readFileSync(join(consumer, 'pv-bundle.mjs'), 'utf8')).toMatch(/installLibraries\(LIBRARIES\d*\)/);
  });

  // The detector's own check: a bundle that uses every kind (through the package root) must show every one.
  it('the kind detector finds every kind in a bundle of the package root that uses them all', async () => {
    writeFileSync(join(consumer, 'all-entry.mjs'), `import * as all from '@clusterspec/artifacts';\nfor (const k of Object.values(all)) k.validate({});\n`);
    const result = await build({ entryPoints: [join(consumer, 'all-entry.mjs')], absWorkingDir: consumer, bundle: true, minify: true, format: 'esm', platform: 'node', write: false, logLevel: 'silent' });
    const api = join(consumer, 'node_modules/@clusterspec/artifacts/dist/api');
    const kinds = readdirSync(api, { recursive: true, encoding: 'utf8' }).flatMap((f) => /(?:^|\/)([A-Z]\w*)\.js$/.exec(f)?.[1] ?? []).sort();
    expect(kinds.length).toBe(16);
    expect(kindsInBundle(result.outputFiles[0].text)).toEqual(expect.arrayContaining(kinds));
  });

  it('holds no other kind: each kind module tree-shakes to its own schema', () => {
    expect(kindsInBundle(bundle)).toEqual(['StorageClass']);
  });
});

/**
 * The kinds whose schema is in a bundle, told by the names of the definitions (component schemas) that
 * only that kind's schema tree reaches, the kind itself included: a kind counts when at least half of
 * them occur as a quoted name or `$ref` target (`"CSIDriverSpec"`, `/CSIDriverSpec"`), as a kind's
 * definitions are written in its data module. Field names cannot tell: CustomResourceDefinition's are
 * the JSON Schema keywords every schema and the schema runtime use, and words like `object`,
 * `resource` and `version` (WatchEvent's, StorageVersionMigration's) occur in any code.
 */
function kindsInBundle(text: string): string[] {
  const doc = JSON.parse(readFileSync(join(ROOT, 'out/openapi/v3/all.json'), 'utf8')) as { components: { schemas: Record<string, Record<string, unknown>> } };
  const schemas = doc.components.schemas;
  const kinds = Object.entries(schemas).flatMap(([name, s]) => {
    const gvk = s['x-cluster-group-version-kind'] as { kind: string }[] | undefined;
    return gvk && !name.endsWith('List') ? [{ kind: gvk[0].kind, name }] : [];
  });
  const definitionsOf = (root: string): Set<string> => {
    const seen = new Set<string>([root]);
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string') {
          const ref = v.replace('#/components/schemas/', '');
          if (!seen.has(ref)) {
            seen.add(ref);
            walk(schemas[ref]);
          }
        } else walk(v);
      }
    };
    walk(schemas[root]);
    return seen;
  };
  // all.json names definitions by their Go package path; the data modules by the last segment.
  const shortName = (d: string): string => d.slice(d.lastIndexOf('.') + 1);
  const all = kinds.map((k) => ({ ...k, definitions: definitionsOf(k.name) }));
  return all
    .filter(({ kind, definitions }) => {
      const others = new Set(all.filter((o) => o.kind !== kind).flatMap((o) => [...o.definitions]));
      const own = [...definitions].filter((d) => !others.has(d)).map(shortName);
      return own.length > 0 && own.filter((d) => new RegExp(`["/]${d}"`).test(text)).length * 2 >= own.length;
    })
    .map((k) => k.kind)
    .sort();
}

describe('@arethetypeswrong/cli', () => {
  it.runIf(existsSync(attw))('finds no problem in either tarball for ESM consumers (node16 from ESM, bundler) on the root, group-version and kind subpaths', () => {
    // One kind and one group-version of a named group and of the core group: the rest are the same pattern.
    const subpaths = ['storage.cluster.io/v1', KIND_SUBPATH, 'v1', 'v1/ConfigMap'];
    for (const tarball of tarballs(packed)) {
      const entrypoints = tarball.includes('artifacts') ? ['.', ...subpaths] : ['.', 'storage.cluster.io/v1', 'v1'];
      const out = execFileSync(process.execPath, [attw, tarball, '--profile', 'esm-only', '--format', 'json', '--entrypoints', ...entrypoints], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const report = JSON.parse(out) as { analysis: { problems: unknown[]; entrypoints: Record<string, unknown> } };
      expect(Object.keys(report.analysis.entrypoints).length).toBe(entrypoints.length);
      // ESM only (README): node10 and CommonJS-from-TypeScript resolutions are out of scope, as attw's esm-only profile says.
      const inScope = (p: { resolutionKind?: string }) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs';
      expect((report.analysis.problems as { kind: string; resolutionKind?: string }[]).filter(inScope)).toEqual([]);
    }
  });
});

interface BadInputCase {
  name: string;
  subpath: string;
  call: 'validate' | 'validateUpdate' | 'applyDefaults';
  input: string;
  old?: string;
  /** The fields the errors name (sorted, repeated as often as reported); null for applyDefaults. */
  fields: string[] | null;
  /** A case that throws today instead of returning errors: why, and who fixes it. */
  knownGap?: string;
}

/**
 * The longest message any hostile case may get: none echoes its input. A value is shown up to
 * runtime/schema/errors.ts MAX_SHOWN_VALUE_CHARS (16 KiB), and no case here has one that long to show.
 */
const MAX_MESSAGE_CHARS = 1024;

const SC = 'storage.cluster.io/v1/StorageClass';
const badInput: BadInputCase[] = [
  { name: 'null', subpath: SC, call: 'validate', input: 'null', fields: [''] },
  { name: 'a number', subpath: SC, call: 'validate', input: 'number', fields: [''] },
  { name: 'a string', subpath: SC, call: 'validate', input: 'string', fields: [''] },
  { name: 'an array', subpath: SC, call: 'validate', input: 'array', fields: [''] },
  { name: 'undefined', subpath: SC, call: 'validate', input: 'undefined', fields: [''] },
  { name: 'a cycle through a map of strings', subpath: SC, call: 'validate', input: 'cyclicParameters', fields: ['parameters[self]'] },
  { name: 'a cycle through an unknown field', subpath: SC, call: 'validate', input: 'cyclicUnknownField', fields: [] },
  { name: 'a cyclic object updating a valid one', subpath: SC, call: 'validateUpdate', input: 'cyclicParameters', old: 'valid', fields: ['parameters', 'parameters[self]'] },
  { name: 'defaults of a cyclic object', subpath: SC, call: 'applyDefaults', input: 'cyclicParameters', fields: null },
  // Each message stays under MAX_MESSAGE_CHARS: the value is omitted as upstream prints an omitted value (errors.ts).
  { name: 'a 10 MB name (metadata checks)', subpath: SC, call: 'validate', input: 'tenMegabyteName', fields: ['metadata.name'] },
  { name: 'a 10 MB provisioner (a declarative rule)', subpath: SC, call: 'validate', input: 'tenMegabyteProvisioner', fields: ['provisioner'] },
  { name: 'a 10 MB reclaimPolicy (an enum)', subpath: SC, call: 'validate', input: 'tenMegabyteReclaimPolicy', fields: ['reclaimPolicy'] },
  { name: 'a 10 MB label value', subpath: SC, call: 'validate', input: 'tenMegabyteLabelValue', fields: ['metadata.labels'] },
  { name: 'a 10 MB ConfigMap value', subpath: 'v1/ConfigMap', call: 'validate', input: 'tenMegabyteConfigMapValue', fields: ['[]'] },
  { name: '100,000 levels in a map of strings', subpath: SC, call: 'validate', input: 'deepParameters', fields: ['parameters[a]'] },
  { name: '100,000 levels in labels', subpath: SC, call: 'validate', input: 'deepLabels', fields: ['metadata.labels[a]', 'metadata.labels[a]'] },
  { name: '100,000 levels in an unknown field', subpath: SC, call: 'validate', input: 'deepUnknownField', fields: [] },
  { name: 'values of the wrong type', subpath: SC, call: 'validate', input: 'wrongTypes', fields: ['allowVolumeExpansion', 'mountOptions', 'provisioner'] },
  { name: 'a CRD whose schema nests 100 levels', subpath: 'apiextensions.cluster.io/v1/CustomResourceDefinition', call: 'validate', input: 'crdSchemaDepth100', fields: [] },
  {
    name: 'a CRD whose schema nests 2,000 levels',
    subpath: 'apiextensions.cluster.io/v1/CustomResourceDefinition',
    call: 'validate',
    input: 'crdSchemaDepth2000',
    // beyond runtime/schema/too-deep.ts MAX_RECURSIVE_NESTING: one error where the schema recursion starts
    fields: ['spec.versions[0].schema.openAPIV3Schema'],
  },
  {
    name: 'a cyclic object updating a cyclic one',
    subpath: SC,
    call: 'validateUpdate',
    input: 'cyclicParameters',
    old: 'cyclicParameters',
    // the immutability comparison takes the two cycles as equal, as Go's reflect.DeepEqual does
    fields: ['parameters[self]'],
  },
];

describe('hostile input through the packaged validators: field errors, never a throw or a hang', () => {
  let results: Map<string, { ms: number; threw?: string; result?: { field: string; reason: string; messageChars: number }[] | null }>;
  beforeAll(() => {
    copyFileSync(join(ROOT, 'test/packages/bad-input-runner.mjs'), join(consumer, 'bad-input-runner.mjs'));
    const r = run('bad-input-runner.mjs', [JSON.stringify(badInput.map(({ name, subpath, call, input, old }) => ({ name, subpath, call, input, old })))]);
    expect(r.signal).toBeNull();
    results = new Map(r.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((l) => [l.name, l]));
  }, 60_000);

  for (const c of badInput) {
    (c.knownGap ? it.fails : it)(`${c.name}${c.knownGap ? ` (known gap: ${c.knownGap})` : ''}`, () => {
      const got = results.get(c.name)!;
      expect(got.threw).toBeUndefined();
      expect(got.ms).toBeLessThan(5_000);
      expect(got.result === null ? null : got.result!.map((e) => e.field).sort()).toEqual(c.fields);
      for (const e of got.result ?? []) expect(e.messageChars, `${e.field}: ${e.reason}`).toBeLessThan(MAX_MESSAGE_CHARS);
    });
  }
});
