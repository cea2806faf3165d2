// `clusterspec generate`: compiles a spec (or CRD manifests) into types, validators, OpenAPI
// documents, CRDs and the rest of the artifact kinds; --check compares instead of writing.
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { OutputFile } from '../../output.ts';
import { emitOutput } from '../emit.ts';
import { reportGenerationError } from '../generation-error.ts';
import { ConfigError, resolveProject, type ProjectSettings, type ResolvedProject } from '../../project/config.ts';
import { generateProject } from '../../project/pipeline.ts';
import { crdObjectRules } from '../platform-validators.ts';
import { EXIT, UsageError, flagValue, type CliIO, type Command } from '../command.ts';

const USAGE = `Usage: clusterspec generate [--spec DIR | --crds DIR] [--out DIR] [--check] [--config FILE]

Compiles a spec in clusterspec's format (api.yaml, shapes/, resources/; see spec/README.md) or a folder
of CustomResourceDefinition manifests into: TypeScript types, standalone validators, OpenAPI v2 and v3
documents and CRD manifests (one per kind, every version), plus the artifact kinds the generators add.

  --spec DIR           the spec folder
  --crds DIR           CustomResourceDefinition manifests (apiextensions.k8s.io/v1 or apiextensions.cluster.io/v1)
                       instead of a spec: types, validators and OpenAPI per version, under OUT/<version>/
  --out DIR            the output folder (default: out beside the configuration)
  --check              compare OUT with what would be generated; exit 1 and list stale files
  --config FILE        settings file (default: clusterspec.config.json, else the "clusterspec" key of package.json)
  --crd-flavor F       cluster (apiextensions.cluster.io, x-cluster-*; default) or kubernetes (apiextensions.k8s.io, x-kubernetes-*)
  --no-platform-shapes do not load the platform's meta shapes (ObjectMeta, ListMeta, Status, ...) beside the spec

Settings file keys: spec, crds, out, crdFlavor, platformShapes (paths relative to the file).
A spec error prints <file>:<line>: <path>: <problem>, exits 1 and leaves OUT untouched.
`;

export { reportGenerationError };

const VALUE_FLAGS = ['--spec', '--crds', '--out', '--config', '--crd-flavor'] as const;

/** What `generate` and `docs` read from their command line: the project settings given as flags. */
export interface ProjectArgs {
  flags: ProjectSettings;
  check: boolean;
  configFile?: string;
}

/** Parses the project flags; undefined when `--help` was asked for. */
export function parseProjectArgs(args: string[]): ProjectArgs | undefined {
  const flags: ProjectSettings = {};
  let check = false;
  let configFile: string | undefined;
  for (let i = 0; i < args.length; ) {
    const a = args[i];
    if (a === '-h' || a === '--help') return undefined;
    if (a === '--check') { check = true; i++; continue; }
    if (a === '--no-platform-shapes') { flags.platformShapes = false; i++; continue; }
    const flag = VALUE_FLAGS.map((name) => ({ name, v: flagValue(args, i, [name]) })).find((x) => x.v !== undefined);
    if (!flag?.v) throw new UsageError(`unknown argument ${JSON.stringify(a)}`);
    const value = flag.v.value;
    if (flag.name === '--spec') flags.spec = value;
    else if (flag.name === '--crds') flags.crds = value;
    else if (flag.name === '--out') flags.out = value;
    else if (flag.name === '--config') configFile = value;
    else if (value === 'cluster' || value === 'kubernetes') flags.crdFlavor = value;
    else throw new UsageError('--crd-flavor is cluster or kubernetes');
    i += flag.v.used;
  }
  return { flags, check, configFile };
}

/** The project the settings name; a bad settings file is a usage error. */
export function projectOf(io: CliIO, parsed: ProjectArgs): ResolvedProject {
  try {
    return resolveProject(io.cwd, parsed.flags, parsed.configFile);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
}

async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseProjectArgs(args);
  if (!parsed) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const { check } = parsed;
  const project = projectOf(io, parsed);
  const label = relative(io.cwd, project.out) || '.';
  const started = performance.now();
  let files: OutputFile[];
  try {
    files = await generateProject(project, crdObjectRules);
  } catch (err) {
    const code = reportGenerationError(io, err, label);
    if (code !== undefined) return code;
    throw err;
  }
  return emitOutput(io, files, project.out, check, label, 'clusterspec generate', started);
}

export const generateCommand: Command = { name: 'generate', summary: 'compile a spec or CRD manifests into types, validators, OpenAPI and CRDs', usage: USAGE, run };
