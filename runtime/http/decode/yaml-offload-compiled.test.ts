// The YAML worker as the server package runs it: yaml-offload.ts and yaml-decode.worker.ts compiled
// to JavaScript as generators/packages/build.ts compiles the server (no TypeScript loader at run
// time), then run by plain node: a large YAML body is decoded on the worker thread, not on the
// request thread, and the idle worker lets the process exit. The compiled modules are written under node_modules/.cache, where they find the
// repository's packages (`yaml`) as the package finds its installed ones.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../../../generators/packages/compile.ts';
import { ROOT } from '../../../generators/packages/build.ts';

const cache = join(ROOT, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const outDir = mkdtempSync(join(cache, 'clusterspec-yaml-offload-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** Run by plain node against the compiled modules: where a large body is decoded, and what it gives. */
const probe = (offloadUrl: string): string => `
import { isMainThread } from 'node:worker_threads';
const { offloadYaml, takeOffloaded, workerEntry } = await import(${JSON.stringify(offloadUrl)});
const data = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => ['key-' + i, 'value ' + i]));
const text = 'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: big}\\ndata:\\n' + Object.entries(data).map(([k, v]) => '  ' + k + ': ' + v).join('\\n') + '\\n';
const serving = setInterval(() => undefined, 1000); // what the HTTP server is in the server: the worker never keeps a process alive
await offloadYaml(text);
clearInterval(serving);
const r = takeOffloaded(text);
process.stdout.write(JSON.stringify({ entry: workerEntry(${JSON.stringify(offloadUrl)}).href, bytes: text.length, kind: r?.kind, keys: r?.kind === 'decoded' ? Object.keys(r.value.data).length : undefined, isMainThread }));
`;

describe('the YAML worker, compiled', () => {
  it('loads without tsx: a body of 20,000 bytes or more is decoded on the worker', () => {
    const written = compile({ root: ROOT, entries: ['runtime/http/decode/yaml-offload.ts', 'runtime/http/decode/yaml-decode.worker.ts'].map((e) => join(ROOT, e)), outDir, declarations: false });
    const offload = join(outDir, 'runtime/http/decode/yaml-offload.js');
    expect(written).toContain(offload);
    expect(written).toContain(join(outDir, 'runtime/http/decode/yaml-decode.worker.js'));
    // a file, not `-e`: a worker inherits the process's node flags, and --input-type fails a file entry
    const script = join(outDir, 'probe.mjs');
    writeFileSync(script, probe(pathToFileURL(offload).href));
    const r = spawnSync(process.execPath, [script], { cwd: outDir, encoding: 'utf8', timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '' } });
    expect(r.stderr).toBe('');
    // exited by itself once its interval was cleared: the idle worker keeps no process alive
    expect(r.status).toBe(0);
    const got = JSON.parse(r.stdout) as { entry: string; bytes: number; kind?: string; keys?: number };
    expect(got.entry).toBe(pathToFileURL(join(outDir, 'runtime/http/decode/yaml-decode.worker.js')).href);
    expect(got.bytes).toBeGreaterThan(20_000);
    // only the worker's reply is kept: without the worker, takeOffloaded has nothing
    expect(got, r.stdout).toMatchObject({ kind: 'decoded', keys: 3000 });
  }, 60_000);
});
