// Writes out/ atomically (a staging folder renamed into place) or compares it (--check).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { OutputFile } from './output.ts';

/** Files are written, and the previous out/ removed, concurrently (libuv's pool): a cold run's last few hundred ms. */
export async function writeOut(outDir: string, files: OutputFile[]): Promise<void> {
  const parent = dirname(outDir);
  const staging = join(parent, `.out-staging-${process.pid}`);
  const old = join(parent, `.out-old-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const dir of new Set(files.map((f) => dirname(join(staging, f.path))))) mkdirSync(dir, { recursive: true });
    await Promise.all(files.map((f) => writeFile(join(staging, f.path), f.content)));
    if (existsSync(outDir)) renameSync(outDir, old);
    renameSync(staging, outDir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (existsSync(old) && !existsSync(outDir)) renameSync(old, outDir);
    throw err;
  }
  await rm(old, { recursive: true, force: true });
}

export interface StaleReport {
  changed: string[];
  missing: string[];
  extra: string[];
}

/** Compares the generated files with out/ on disk; empty lists mean out/ is current. */
export function checkOut(outDir: string, files: OutputFile[]): StaleReport {
  const onDisk = new Set(existsSync(outDir) ? listFiles(outDir).map((p) => relative(outDir, p).split('\\').join('/')) : []);
  const report: StaleReport = { changed: [], missing: [], extra: [] };
  for (const f of files) {
    if (!onDisk.has(f.path)) report.missing.push(f.path);
    else if (readFileSync(join(outDir, f.path), 'utf8') !== f.content) report.changed.push(f.path);
    onDisk.delete(f.path);
  }
  report.extra = [...onDisk].sort();
  return report;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}
