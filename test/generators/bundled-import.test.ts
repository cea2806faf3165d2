// `npm run generate` loads the generators as one esbuild bundle (generators/bundled-import.ts): each
// bundled module still finds what lies beside its source (import.meta.url), a shared module is the
// process's one instance, and no bundle file is left behind. Run under tsx, as npm run generate is.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const generators = join(root, 'generators');
const bundleDir = join(root, 'node_modules', '.cache', 'clusterspec');
const scratch = mkdtempSync(join(tmpdir(), 'clusterspec-bundled-import-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const bundles = (): string[] => (existsSync(bundleDir) ? readdirSync(bundleDir).filter((f) => f.startsWith('bundle-')) : []);

describe('importBundled', () => {
  it('bundles, keeps each module its own location and the shared pool, and removes the bundle', () => {
    const script = join(scratch, 'probe.mts'); // ESM outside the repository's package.json
    // The plain import throws: the test fails if the bundle was not used.
    writeFileSync(script, `
import { importBundled } from ${JSON.stringify(pathToFileURL(join(generators, 'bundled-import.ts')).href)};
const poolModule = ${JSON.stringify(join(generators, 'format-pool.ts'))};
const { formatPool } = await import(poolModule);
type Probe = { renderTemplate: (name: string, values: Record<string, string>) => string; formatPool: () => unknown };
const bundled = await importBundled<Probe>(
  "export { renderTemplate } from './templates.ts';\\nexport { formatPool } from './format-pool.ts';\\n",
  [poolModule],
  () => { throw new Error('not bundled'); },
);
const text = bundled.renderTemplate('validator-data.ts.tmpl', { header: '// h', kind: 'Probe', json: '{}' });
console.log(JSON.stringify({ template: text.includes('What the Probe validator links'), samePool: bundled.formatPool() === formatPool() }));
process.exit(0);
`);
    const before = bundles();
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ template: true, samePool: true });
    expect(bundles()).toEqual(before);
  });
});
