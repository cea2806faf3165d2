// Builds and packs the packages of packages/ and installs tarballs into a fresh project, as a consumer
// would: `npm pack`, then `npm install --offline` of the tarballs only (no registry, no lockfile).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, buildPackages, type PackageName } from './build.ts';

export { ROOT };

const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Builds the named packages, packs them into a new temporary folder and returns that folder. */
export async function buildAndPack(names: readonly PackageName[]): Promise<string> {
  await buildPackages(ROOT, names);
  const dir = mkdtempSync(join(tmpdir(), 'clusterspec-tarballs-'));
  for (const n of names) npm(['pack', `--workspace=packages/${n}`, '--pack-destination', dir], ROOT);
  return dir;
}

export const tarballs = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.tgz')).sort().map((f) => join(dir, f));

/** A new empty ESM project with the tarballs installed from disk (`--offline`: a registry lookup fails the install). */
export function consumerProject(tarballPaths: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'clusterspec-consumer-'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`);
  npm(['install', '--offline', '--ignore-scripts', ...tarballPaths], dir);
  return dir;
}

export const removeAll = (...dirs: (string | undefined)[]): void => {
  for (const d of dirs) if (d) rmSync(d, { recursive: true, force: true });
};
