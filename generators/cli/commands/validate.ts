// `clusterspec validate`: offline validation of manifests for pipelines, reported in one or more
// formats (each to standard output or a file), with upstream's field errors and exit statuses.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_FILE_BYTES } from '../../../runtime/validate/run.ts';
import { MissingOperandError } from '../../../runtime/validate/inputs.ts';
import { runValidationParallel } from '../../../runtime/validate/parallel.ts';
import { platformValidators } from '../platform-validators.ts';
import { validatorsModule } from './validate-validators.ts';
import { reporters } from '../reporters/index.ts';
import { EXIT, UsageError, flagValue, type CliIO, type Command } from '../command.ts';


export const USAGE = `Usage: clusterspec validate [--crds DIR] [--old FILE] FILE... [-o FORMAT[=FILE]]... [--summary] [--strict] [-j N]

Validates manifests offline, as the API server validates a create (or an update with --old).

  FILE            a YAML (multi-document) or JSON manifest, a directory (read recursively for
                  .yaml, .yml and .json files), or "-" for standard input. Documents of kind List
                  are validated item by item.
  -o, --output FORMAT[=FILE]
                  text (default), json, junit or sarif; repeatable, each to standard output or to
                  FILE: "-o text -o junit=report.xml" prints text and writes JUnit in one run.
                  The JSON report (apiVersion clusterspec.cluster.io/v1) has a JSON Schema:
                  generators/cli/reporters/report.v1.schema.json.
  --summary       adds totals and counts by reason (text, json, sarif).
  --strict        unknown and duplicate fields are errors, as the server's fieldValidation=Strict
                  (and kubectl's default) makes them. Without it they are warnings, as the server's
                  own default (Warn) reports them while dropping unknown fields: the object would
                  be accepted, so the run stays valid.
  --crds DIR      CustomResourceDefinitions (files in DIR; apiextensions.cluster.io/v1 or
                  apiextensions.k8s.io/v1) whose custom resources may appear in the manifests.
                  Each CRD must itself be valid; an invalid CRD is reported and fails the run. Repeatable.
  --old FILE      old versions of the objects: an object of FILE with the same apiVersion, kind,
                  namespace and name makes its check an update (immutable fields and transition
                  rules that use oldSelf run).
  --max-file-size BYTES
                  files larger than this are reported, not read (default ${DEFAULT_MAX_FILE_BYTES}).
  -j, --jobs N    threads that validate (default 1: this thread alone). More threads start
                  only for a few megabytes of manifests each, as each starts cold; on a
                  2-processor machine -j 2 measured slower than -j 1 (npm run bench:validate).
                  The report is the same whatever N.
  -h, --help      shows this help.

Bad input (a broken YAML document, a document without apiVersion or kind, an unknown kind, an
unreadable file, a symbolic link loop, a file over the size limit) is a finding with file and line;
the run goes on with the next document.

Exit status: 0 every object is valid, 1 an object is invalid or an input could not be validated,
2 usage error (bad flags, a FILE that does not exist), 3 internal error.
`;

interface Output {
  format: string;
  file?: string;
}

/** The version of the package this file ships in: the nearest package.json above it (the repository's, or the toolchain package's when compiled into its dist/). */
function toolVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const pkg = resolve(dir, 'package.json');
    if (existsSync(pkg)) return (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version ?? '0.0.0';
    if (dirname(dir) === dir) return '0.0.0';
  }
}

function parseOutput(value: string): Output {
  const eq = value.indexOf('=');
  const format = eq < 0 ? value : value.slice(0, eq);
  const file = eq < 0 ? undefined : value.slice(eq + 1);
  if (!reporters[format]) throw new UsageError(`unknown output format ${JSON.stringify(format)} (one of ${Object.keys(reporters).join(', ')})`);
  if (file === '') throw new UsageError(`-o ${format}=: the file name is empty`);
  return { format, ...(file !== undefined && file !== '-' ? { file } : {}) };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const crdDirs: string[] = [];
  let oldFile: string | undefined;
  const outputs: Output[] = [];
  const operands: string[] = [];
  let summary = false;
  let strict = false;
  let maxFileBytes = DEFAULT_MAX_FILE_BYTES;
  let jobs = 1;
  for (let i = 0; i < args.length; ) {
    const a = args[i];
    if (a === '-h' || a === '--help') {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    if (a === '--summary' || a === '--strict') {
      if (a === '--summary') summary = true;
      else strict = true;
      i++;
      continue;
    }
    const crds = flagValue(args, i, ['--crds']);
    const old = crds ? undefined : flagValue(args, i, ['--old']);
    const out = crds || old ? undefined : flagValue(args, i, ['-o', '--output']);
    const max = crds || old || out ? undefined : flagValue(args, i, ['--max-file-size']);
    const j = crds || old || out || max ? undefined : flagValue(args, i, ['-j', '--jobs']);
    if (crds) crdDirs.push(crds.value);
    else if (old) oldFile = old.value;
    else if (out) outputs.push(parseOutput(out.value));
    else if (max) {
      if (!/^\d+$/.test(max.value)) throw new UsageError('--max-file-size is a number of bytes');
      maxFileBytes = Number(max.value);
    } else if (j) {
      if (!/^[1-9]\d{0,3}$/.test(j.value)) throw new UsageError('--jobs is a number of threads, 1 or more');
      jobs = Number(j.value);
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown flag ${a}`);
    else operands.push(a);
    i += (crds ?? old ?? out ?? max ?? j)?.used ?? 1;
  }
  if (operands.length === 0) throw new UsageError('no FILE given');
  if (operands.filter((f) => f === '-').length + (oldFile === '-' ? 1 : 0) > 1) throw new UsageError('standard input ("-") can be read only once');
  if (outputs.length === 0) outputs.push({ format: 'text' });
  if (outputs.filter((o) => o.file === undefined).length > 1) throw new UsageError('only one -o format can go to standard output; give the others a file (-o junit=report.xml)');
  const files = outputs.flatMap((o) => (o.file ? [resolve(io.cwd, o.file)] : []));
  if (new Set(files).size !== files.length) throw new UsageError('two -o formats name the same file');

  let report;
  try {
    const opts = { validators: platformValidators, operands, crdDirs, ...(oldFile !== undefined ? { oldFile } : {}), strict, maxFileBytes, readStdin: io.readStdin, cwd: io.cwd };
    report = await runValidationParallel(opts, { jobs, validatorsModule });
  } catch (e) {
    if (e instanceof MissingOperandError) {
      io.stderr(`error: ${e.message}\n`);
      return EXIT.usage;
    }
    throw e;
  }
  const opts = { summary, toolVersion: toolVersion() };
  for (const o of outputs) {
    const rendered = reporters[o.format].render(report, opts);
    if (o.file === undefined) {
      io.stdout(rendered.out);
      if (rendered.diagnostics) io.stderr(rendered.diagnostics);
    } else {
      const target = resolve(io.cwd, o.file);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, rendered.out + (rendered.diagnostics ?? ''));
    }
  }
  if (report.internalError) return EXIT.internal;
  return report.results.every((r) => r.verdict === 'valid') ? EXIT.ok : EXIT.invalid;
}

export const validateCommand: Command = { name: 'validate', summary: 'validate manifests offline, with reports for CI (text, json, junit, sarif)', usage: USAGE, run };
