// generators/bundled-import.ts requires, instead of importing, a package whose import and require
// resolve to the same CommonJS file (yaml, ts-morph: cheaper to load), which must give the very
// module node gives to require(); a package with separate files for import and require
// (@bufbuild/re2) is imported as it is, so the bundle sees its ESM build. Run under tsx, as npm run generate is.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'clusterspec-bundled-commonjs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('importBundled and CommonJS packages', () => {
  it('requires yaml and ts-morph (the instances require() gives) and imports the ESM build of a dual package', () => {
    const script = join(scratch, 'probe.mts');
    writeFileSync(script, `
import { createRequire } from 'node:module';
import { importBundled } from ${JSON.stringify(pathToFileURL(join(root, 'generators', 'bundled-import.ts')).href)};
const require = createRequire(${JSON.stringify(pathToFileURL(join(root, 'generators', 'bundled-import.ts')).href)});
type Probe = { parseYaml: unknown; Project: unknown; RE2JS: unknown };
const bundled = await importBundled<Probe>(
  "export { parse as parseYaml } from 'yaml';\\nexport { Project } from 'ts-morph';\\nexport { RE2JS } from '@bufbuild/re2';\\n",
  [],
  () => { throw new Error('not bundled'); },
);
const esmRe2 = (await import(require.resolve('@bufbuild/re2').replace('/cjs/', '/esm/'))).RE2JS;
console.log(JSON.stringify({
  yaml: bundled.parseYaml === require('yaml').parse,
  tsMorph: bundled.Project === require('ts-morph').Project,
  re2IsEsm: bundled.RE2JS === esmRe2 && bundled.RE2JS !== require('@bufbuild/re2').RE2JS,
}));
process.exit(0);
`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ yaml: true, tsMorph: true, re2IsEsm: true });
  });
});
