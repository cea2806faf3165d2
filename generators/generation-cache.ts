// A cache of the last generation, keyed by a hash of every input: spec/, the generators and
// templates, the runtime they compile with, and package-lock.json (prettier and the other
// libraries). A run whose inputs hash the same gives the cached files without loading the generators;
// --check compares those files with out/ exactly as it compares fresh ones. Only node: modules here.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { OutputFile } from './output.ts';

const INPUT_DIRS = ['spec', 'generators', 'templates', 'runtime'];
const INPUT_FILES = ['package-lock.json'];
const CACHE_VERSION = '1';

function listInputs(root: string, dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => {
      const rel = join(dir, e.name);
      if (e.isDirectory()) return listInputs(root, rel);
      // Tests do not shape the output.
      return e.isFile() && !e.name.endsWith('.test.ts') ? [rel] : [];
    });
}

export function inputHash(root: string): string {
  const hash = createHash('sha256').update(`clusterspec-generate-cache ${CACHE_VERSION}\n`);
  for (const file of [...INPUT_DIRS.flatMap((d) => listInputs(root, d)), ...INPUT_FILES.filter((f) => existsSync(join(root, f)))]) {
    hash.update(`${relative(root, join(root, file)).split('\\').join('/')}\n`).update(readFileSync(join(root, file))).update('\n');
  }
  return hash.digest('hex');
}

const cacheDir = (root: string): string => join(root, 'node_modules', '.cache', 'clusterspec');

export function readCache(root: string, hash: string): OutputFile[] | undefined {
  const file = join(cacheDir(root), `generate-${hash}.json`);
  if (!existsSync(file)) return undefined;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { files: OutputFile[] }).files;
  } catch {
    return undefined;
  }
}

/** Keeps one entry: the newest generation. Written to a temporary name and renamed, so a reader never sees half a file. */
export function writeCache(root: string, hash: string, files: OutputFile[]): void {
  const dir = cacheDir(root);
  mkdirSync(dir, { recursive: true });
  for (const old of readdirSync(dir)) if (old.startsWith('generate-')) rmSync(join(dir, old), { force: true });
  const tmp = join(dir, `.tmp-${process.pid}.json`);
  writeFileSync(tmp, JSON.stringify({ files }));
  renameSync(tmp, join(dir, `generate-${hash}.json`));
}
