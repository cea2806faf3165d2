// `clusterspec generate` on a project's own spec (examples/widgets) and on CRD manifests: the committed
// example output is current (the CI check), its validators give each fixture its expected verdict,
// settings come from a file or package.json, a spec error names file, line and path and leaves the
// output untouched, and CRD manifests give types and validators per version.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../generators/cli/main.ts';
import type { CliIO } from '../../generators/cli/command.ts';
import { EXAMPLE, exampleFixtures, offlineErrors } from '../e2e/example-fixtures.ts';
import { ROOT } from '../e2e/harness.ts';

const tmp = mkdtempSync(join(tmpdir(), 'clusterspec-generate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), readStdin: () => '', cwd };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('clusterspec generate, a project spec', () => {
  it('the committed examples/widgets/out is what the spec generates (bin/clusterspec.mjs generate --check, as CI runs it)', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'clusterspec.mjs'), 'generate', '--check'], { cwd: EXAMPLE, encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^out\/ is current: \d+ files match the spec$/m);
    expect(r.status).toBe(0);
  });

  it('gives the same artifact kinds as this repository, per version for a kind in two versions; one CRD per kind with every version', () => {
    const out = join(EXAMPLE, 'out');
    for (const v of ['v1', 'v1alpha1']) {
      for (const f of ['types/index.ts', 'validators/index.ts', 'validators/widget.ts', 'openapi/v2/swagger.json', `openapi/v3/apis/widgets.example.com/${v}.json`, 'index.ts']) {
        expect(existsSync(join(out, v, f)), `${v}/${f}`).toBe(true);
      }
      expect(existsSync(join(out, v, 'routes'))).toBe(false);
      expect(readFileSync(join(out, v, 'types/index.ts'), 'utf8')).toMatch(/^export interface Widget \{/m);
    }
    expect(existsSync(join(out, 'v1alpha1/validators/widgetclass.ts'))).toBe(true);
    const crd = parse(readFileSync(join(out, 'crds/widgets.widgets.example.com.yaml'), 'utf8')) as { spec: { group: string; versions: Array<{ name: string; storage: boolean; subresources?: object }> } };
    expect(crd.spec.group).toBe('widgets.example.com');
    expect(crd.spec.versions.map((v) => [v.name, v.storage, v.subresources])).toEqual([['v1', true, { status: {} }], ['v1alpha1', false, { status: {} }]]);
    expect(existsSync(join(out, 'crds/widgetclasses.widgets.example.com.yaml'))).toBe(true);
    expect(readFileSync(join(out, 'v1/validators/widget.ts'), 'utf8')).toContain("'../../../../../runtime/");
  });

  it.each(exampleFixtures())('the generated validators: $name', async (f) => {
    const errors = await offlineErrors(f);
    if (f.valid) expect(errors).toEqual([]);
    else expect(errors.map((e) => e.field)).toEqual(expect.arrayContaining(f.fields));
  });

  it('reads its settings from clusterspec.config.json, relative to the file', async () => {
    const dir = join(tmp, 'config-file');
    cpSync(join(EXAMPLE, 'spec'), join(dir, 'api-spec'), { recursive: true });
    writeFileSync(join(dir, 'clusterspec.config.json'), JSON.stringify({ spec: 'api-spec', out: 'generated', crdFlavor: 'kubernetes' }));
    const r = await run(['generate'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^generated \d+ files in generated\//);
    const crd = readFileSync(join(dir, 'generated/crds/widgets.widgets.example.com.yaml'), 'utf8');
    expect(crd).toContain('apiVersion: apiextensions.k8s.io/v1');
    expect(crd).toContain('x-kubernetes-list-type: map');
    expect(crd).not.toContain('x-cluster-');
    expect((await run(['generate', '--check'], dir)).code).toBe(0);
    // Those upstream-flavoured CRDs (apiextensions.k8s.io, x-kubernetes-*) are --crds input for validate too.
    const fixtures = exampleFixtures().filter((f) => !f.old);
    const v = await run(['validate', '--crds', 'generated/crds', '-o', 'json', join(EXAMPLE, 'fixtures')], dir);
    expect(v.code).toBe(1);
    const report = JSON.parse(v.stdout) as { resources: Array<{ verdict: string; name: string }> };
    const creates = report.resources.filter((r) => !['mode-change', 'scale-up'].includes(r.name));
    expect(creates.map((r) => r.verdict).sort()).toEqual(fixtures.map((f) => (f.valid ? 'valid' : 'invalid')).sort());
  });

  it('refuses an unknown setting as a usage error', async () => {
    const dir = join(tmp, 'bad-config');
    cpSync(join(EXAMPLE, 'spec'), join(dir, 'spec'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ clusterspec: { spec: 'spec', output: 'out' } }));
    const r = await run(['generate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('package.json clusterspec: unknown setting "output"');
  });

  it('a spec error names file, line and path, exits 1 and leaves the output folder untouched', async () => {
    const dir = join(tmp, 'broken');
    cpSync(join(EXAMPLE, 'spec'), join(dir, 'spec'), { recursive: true });
    expect((await run(['generate', '--spec', 'spec', '--out', 'out'], dir)).code).toBe(0);
    const before = readFileSync(join(dir, 'out/crds/widgets.widgets.example.com.yaml'), 'utf8');
    expect(before).toContain('x-cluster-list-map-keys');
    const file = join(dir, 'spec/resources/widget.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace("rule: self.size == 'large' || self.replicas <= 10", "rule: self.size == 'large' || self.replicas <= 'ten'").replace('x-cluster-list-map-keys: [name]', 'x-cluster-list-map-keys: [title]'));
    const r = await run(['generate', '--spec', 'spec', '--out', 'out'], dir);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('spec error (out/ left unchanged):');
    expect(lines[1]).toMatch(/^spec\/resources\/widget\.yaml:\d+: components\.schemas\.WidgetSpec\.properties\.ports\.x-cluster-list-map-keys: map key title is not a property of the items$/);
    expect(readFileSync(join(dir, 'out/crds/widgets.widgets.example.com.yaml'), 'utf8')).toBe(before);
    // With the list fixed, the CEL rule is the error, again with file, line and path.
    writeFileSync(file, readFileSync(file, 'utf8').replace('x-cluster-list-map-keys: [title]', 'x-cluster-list-map-keys: [name]'));
    const cel = await run(['generate', '--spec', 'spec', '--out', 'out'], dir);
    expect(cel.code).toBe(1);
    expect(cel.stderr).toMatch(/spec\/resources\/widget\.yaml:\d+: components\.schemas\.WidgetSpec\.x-cluster-validations\[0\]/);
    expect(readdirSync(dir).sort()).toEqual(['out', 'spec']);
  });
});

describe('clusterspec generate --crds', () => {
  it('CRD manifests give types, validators and OpenAPI per version, validators enforcing the CRD schema and rules', async () => {
    const dir = join(tmp, 'from-crds');
    cpSync(join(EXAMPLE, 'out', 'crds'), join(dir, 'crds'), { recursive: true });
    const r = await run(['generate', '--crds', 'crds', '--out', 'lib'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const f of ['v1/types/index.ts', 'v1/validators/widget.ts', 'v1alpha1/validators/widget.ts', 'v1alpha1/validators/widgetclass.ts', 'v1/openapi/v3/all.json']) expect(existsSync(join(dir, 'lib', f)), f).toBe(true);
    expect(existsSync(join(dir, 'lib/v1/crds'))).toBe(false);
    expect(readFileSync(join(dir, 'lib/v1/types/index.ts'), 'utf8')).toMatch(/export interface Widget \{/);
    // The validators compiled from the CRDs give every fixture its expected verdict too.
    for (const f of exampleFixtures()) expect((await offlineErrors(f, join(dir, 'lib'))).length > 0, f.name).toBe(!f.valid);
  });

  it('a CRD that is not valid fails generation with its file, line and field', async () => {
    const dir = join(tmp, 'bad-crds');
    cpSync(join(ROOT, 'test/fixtures/cli/bad-crds'), join(dir, 'crds'), { recursive: true });
    const r = await run(['generate', '--crds', 'crds', '--out', 'lib'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crds\/gizmos\.example\.cluster\.io\.yaml:\d+: spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.type: Required value/m);
    expect(existsSync(join(dir, 'lib'))).toBe(false);
  });
});
