// The toolchain and server packages: built, packed, and their compiled code run (from packages/, where
// the repository's node_modules stand in for an install; the server's better-sqlite3 builds from source,
// which is why no test installs it).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAndPack, removeAll, ROOT, tarballs } from '../../generators/packages/pack.ts';

let packed: string;
let scratch: string;

beforeAll(async () => {
  packed = await buildAndPack(['toolchain', 'server']);
  scratch = mkdtempSync(join(tmpdir(), 'clusterspec-apps-'));
}, 110_000);

afterAll(() => removeAll(packed, scratch));

const filesOf = (tarball: string): string[] => execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
const manifestOf = (name: string) => JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };

describe('what each package carries', () => {
  it.each([
    { name: 'toolchain', must: ['package/bin/clusterspec.mjs', 'package/dist/generators/cli.js', 'package/dist/generators/cli/main.js', 'package/dist/templates/validator.ts.tmpl'] },
    { name: 'server', must: ['package/bin/clusterspec-server.mjs', 'package/dist/runtime/cli.js', 'package/dist/out/routes/index.js', 'package/dist/out/openapi/v2/swagger.json', 'package/dist/runtime/storage/wal-checkpoint-worker.js', 'package/dist/runtime/http/decode/yaml-decode.worker.js'] },
  ])('$name: its compiled entry points, no TypeScript sources, no spec or tests', ({ name, must }) => {
    const files = filesOf(tarballs(packed).find((t) => t.includes(`clusterspec-${name}-`))!);
    for (const f of must) expect(files).toContain(f);
    expect(files.filter((f) => f.endsWith('.ts') || f.includes('/spec/') || f.includes('/test/'))).toEqual([]);
  });

  it('only the server depends on better-sqlite3; the artifacts depend on neither the server nor the generators', () => {
    const dependents = ['types', 'artifacts', 'toolchain', 'server'].filter((n) => 'better-sqlite3' in (manifestOf(n).dependencies ?? {}));
    expect(dependents).toEqual(['server']);
    // The artifacts' chunks bundle RE2 and CEL (generators/packages/bundle.ts): nothing to install beside them.
    expect(manifestOf('artifacts').dependencies).toBeUndefined();
    expect(manifestOf('types').dependencies).toBeUndefined();
  });
});

describe('the compiled toolchain', () => {
  it('clusterspec validate: exit 0 for a valid manifest, 1 with the field error for an invalid one', () => {
    const good = join(scratch, 'good.yaml');
    const bad = join(scratch, 'bad.yaml');
    writeFileSync(good, 'apiVersion: storage.cluster.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: csi.example.com\n');
    writeFileSync(bad, 'apiVersion: storage.cluster.io/v1\nkind: StorageClass\nmetadata: {name: fast}\n');
    const cli = (file: string) => spawnSync(process.execPath, [join(ROOT, 'packages/toolchain/bin/clusterspec.mjs'), 'validate', file], { encoding: 'utf8', timeout: 30_000 });
    expect(cli(good).status).toBe(0);
    const r = cli(bad);
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toContain('provisioner');
  });

  it('clusterspec-generate --root: compiles a copy of spec/ into the same out/ the repository commits', () => {
    const root = join(scratch, 'project');
    cpSync(join(ROOT, 'spec'), join(root, 'spec'), { recursive: true });
    const r = spawnSync(process.execPath, [join(ROOT, 'packages/toolchain/bin/clusterspec-generate.mjs'), '--root', root], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    const list = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
    expect(list(join(root, 'out'))).toEqual(list(join(ROOT, 'out')));
    for (const f of ['validators/storageclass.ts', 'jsonschema/storage.cluster.io/storageclass_v1.json', 'openapi/v3/api/v1.json']) {
      expect(readFileSync(join(root, 'out', f), 'utf8')).toBe(readFileSync(join(ROOT, 'out', f), 'utf8'));
    }
  });
});

describe('the compiled server', () => {
  let proc: ChildProcess | undefined;
  afterAll(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc!.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    }
  });

  it('starts from its launcher on memory storage and validates writes with the generated validators', async () => {
    const dataDir = join(scratch, 'data');
    proc = spawn(process.execPath, [join(ROOT, 'packages/server/bin/clusterspec-server.mjs'), '--storage', 'memory', '--port', '0', '--address', '127.0.0.1', '--insecure-http', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const started = proc;
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no start in 30 s: ${out}`)), 30_000);
      started.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      started.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const headers = { Authorization: `Bearer ${readFileSync(join(dataDir, 'admin.token'), 'utf8').trim()}`, 'Content-Type': 'application/json' };
    const post = (body: object) => fetch(`${url}/apis/storage.cluster.io/v1/storageclasses`, { method: 'POST', headers, body: JSON.stringify(body) });
    const sc = { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast' } };
    const invalid = await post(sc);
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as { details: { causes: { field: string }[] } }).details.causes.map((c) => c.field)).toEqual(['provisioner']);
    expect((await post({ ...sc, provisioner: 'csi.example.com' })).status).toBe(201);
    expect((await fetch(`${url}/openapi/v3/apis/storage.cluster.io/v1`, { headers })).status).toBe(200);
  });
});
