// Where `clusterspec generate` reads its settings: flags, else --config FILE, else
// clusterspec.config.json, else the `clusterspec` key of package.json (all in the working folder).
// Paths in a file are relative to that file's folder.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CrdFlavor } from './own-group-crds.ts';

export interface ProjectSettings {
  /** The spec folder (api.yaml, shapes/, resources/). */
  spec?: string;
  /** A folder of CustomResourceDefinition manifests, the input instead of a spec. */
  crds?: string;
  /** The output folder (default `out` beside the configuration). */
  out?: string;
  /** CRD manifests for this platform's server (apiextensions.cluster.io, x-cluster-*; the default) or for Kubernetes. */
  crdFlavor?: CrdFlavor;
  /** Load the platform's meta shapes (ObjectMeta, ListMeta, Status, ...) beside the spec's own (default true). */
  platformShapes?: boolean;
}

export interface ResolvedProject {
  /** Error messages name spec files relative to this folder. */
  root: string;
  spec?: string;
  crds?: string;
  out: string;
  crdFlavor: CrdFlavor;
  platformShapes: boolean;
  /** Where the settings came from, for messages. */
  source: string;
}

export class ConfigError extends Error {}

const KEYS: Record<keyof ProjectSettings, (v: unknown) => boolean> = {
  spec: (v) => typeof v === 'string' && v !== '',
  crds: (v) => typeof v === 'string' && v !== '',
  out: (v) => typeof v === 'string' && v !== '',
  crdFlavor: (v) => v === 'cluster' || v === 'kubernetes',
  platformShapes: (v) => typeof v === 'boolean',
};

function checkSettings(v: unknown, where: string): ProjectSettings {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${where}: must be an object with ${Object.keys(KEYS).join(', ')}`);
  for (const [k, value] of Object.entries(v)) {
    const check = KEYS[k as keyof ProjectSettings];
    if (!check) throw new ConfigError(`${where}: unknown setting ${JSON.stringify(k)} (known: ${Object.keys(KEYS).join(', ')})`);
    if (!check(value)) throw new ConfigError(`${where}.${k}: invalid value ${JSON.stringify(value)}`);
  }
  return v as ProjectSettings;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${file}: ${(e as Error).message}`);
  }
}

/** The settings file found from `cwd` (or named), with its folder; undefined when there is none. */
export function findSettings(cwd: string, configFile?: string): { settings: ProjectSettings; dir: string; source: string } | undefined {
  if (configFile) {
    const file = resolve(cwd, configFile);
    if (!existsSync(file)) throw new ConfigError(`${configFile}: no such file`);
    const data = readJson(file);
    const settings = file.endsWith('package.json') ? (data as { clusterspec?: unknown }).clusterspec : data;
    return { settings: checkSettings(settings, configFile), dir: dirname(file), source: configFile };
  }
  const own = join(cwd, 'clusterspec.config.json');
  if (existsSync(own)) return { settings: checkSettings(readJson(own), 'clusterspec.config.json'), dir: cwd, source: 'clusterspec.config.json' };
  const pkg = join(cwd, 'package.json');
  if (existsSync(pkg)) {
    const data = readJson(pkg) as { clusterspec?: unknown };
    if (data.clusterspec !== undefined) return { settings: checkSettings(data.clusterspec, 'package.json clusterspec'), dir: cwd, source: 'package.json "clusterspec"' };
  }
  return undefined;
}

/** Flags win over the file; paths resolve against the file's folder (flags: against cwd). */
export function resolveProject(cwd: string, flags: ProjectSettings, configFile?: string): ResolvedProject {
  const found = findSettings(cwd, configFile);
  const fromFile = found?.settings ?? {};
  const dir = found?.dir ?? cwd;
  const path = (key: 'spec' | 'crds' | 'out'): string | undefined =>
    flags[key] !== undefined ? resolve(cwd, flags[key]!) : fromFile[key] !== undefined ? resolve(dir, fromFile[key]!) : undefined;
  const spec = path('spec');
  const crds = path('crds');
  if (spec && crds) throw new ConfigError('give either a spec (--spec) or CRD manifests (--crds), not both');
  if (!spec && !crds) throw new ConfigError('nothing to compile: give --spec DIR or --crds DIR (or set them in clusterspec.config.json or package.json "clusterspec")');
  return {
    root: dir,
    ...(spec ? { spec } : {}),
    ...(crds ? { crds } : {}),
    out: path('out') ?? resolve(dir, 'out'),
    crdFlavor: flags.crdFlavor ?? fromFile.crdFlavor ?? 'cluster',
    platformShapes: flags.platformShapes ?? fromFile.platformShapes ?? true,
    source: found && Object.keys(fromFile).length ? found.source : 'flags',
  };
}
