// `clusterspec docs`: the API reference site of a spec (or of CRD manifests) alone, into a folder:
// the docs generator's files of `clusterspec generate`, without the other artifact kinds.
import { isAbsolute, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { OutputFile } from '../../output.ts';
import { generateProject } from '../../project/pipeline.ts';
import { crdObjectRules } from '../platform-validators.ts';
import { EXIT, UsageError, type CliIO, type Command } from '../command.ts';
import { emitOutput } from '../emit.ts';
import { parseProjectArgs, projectOf, reportGenerationError } from './generate.ts';

const USAGE = `Usage: clusterspec docs [--spec DIR | --crds DIR] [--out DIR] [--check] [--config FILE]

Writes the API reference site (static HTML, CSS and a little script; no network; works from file://)
of a spec or of CustomResourceDefinition manifests into OUT (default: OUT of the settings, then docs/).
For CRD manifests, one site per version under OUT/<version>/. Kind pages link their JSON Schema at
../jsonschema/ beside the site, where \`clusterspec generate\` writes them.

  --spec DIR, --crds DIR, --config FILE, --crd-flavor F, --no-platform-shapes   as for generate
  --out DIR      the site's folder
  --check        compare OUT with the site that would be written; exit 1 and list stale files
`;

/** The docs generator's files (`docs/...` or `<version>/docs/...`), at their place inside the site. */
export function siteFiles(files: readonly OutputFile[]): OutputFile[] {
  return files.flatMap((f) => {
    const m = /^(?:(.+)\/)?docs\/(.+)$/.exec(f.path);
    return m ? [{ ...f, path: m[1] ? `${m[1]}/${m[2]}` : m[2] }] : [];
  });
}

async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseProjectArgs(args);
  if (!parsed) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const siteFlag = parsed.flags.out;
  const project = projectOf(io, { ...parsed, flags: { ...parsed.flags, out: undefined } });
  const outDir = siteFlag === undefined ? join(project.out, 'docs') : isAbsolute(siteFlag) ? siteFlag : resolve(io.cwd, siteFlag);
  const label = relative(io.cwd, outDir) || '.';
  const started = performance.now();
  let files: OutputFile[];
  try {
    files = siteFiles(await generateProject(project, crdObjectRules));
  } catch (err) {
    const code = reportGenerationError(io, err, label);
    if (code !== undefined) return code;
    throw err;
  }
  if (files.length === 0) throw new UsageError('the project has no resource to document');
  return emitOutput(io, files, outDir, parsed.check, label, 'clusterspec docs', started);
}

export const docsCommand: Command = { name: 'docs', summary: 'write the API reference site of a spec or CRD manifests', usage: USAGE, run };
