// `clusterspec validate`: offline validation of manifests, as the API server would validate a
// create (or, with --old, an update) of each object. Built-in kinds use the generated validators
// of out/validators; custom resources use runtime/crd with the CRDs found in --crds DIR.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';
import * as validators from '../out/validators/index.ts';
import { buildCustomResourceVersion, type CustomResourceVersion } from './crd/custom-resource.ts';
import type { CustomResourceDefinition } from './crd/types.ts';
import { validateCRD, validateCRDUpdate } from './crd/validate-crd.ts';
import type { FieldError } from './schema/types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const USAGE = `Usage: clusterspec validate [--crds DIR] [--old FILE] FILE...

Validates manifests offline, as the API server validates a create (or an update with --old).

  FILE          a YAML (multi-document) or JSON manifest; "-" reads standard input.
                Documents of kind List are validated item by item.
  --crds DIR    CustomResourceDefinitions (YAML/JSON files in DIR) whose custom resources may
                appear in the manifests. Each CRD must itself be valid (object rules, structural
                schema, CEL rules); an invalid CRD is reported and fails the run.
  --old FILE    old versions of the objects: an object of FILE with the same apiVersion, kind,
                namespace and name as a manifest object makes its check an update (immutable
                fields and transition rules that use oldSelf run).
  -h, --help    shows this help.

Built-in kinds are validated with the generated validators (out/validators); CustomResourceDefinition
manifests get the full CRD checks. Unknown fields of custom resources are reported as warnings.

Exit status: 0 when every object is valid, 1 when any object (or CRD) is invalid, 2 on usage
errors, unreadable files or unparsable documents.
`;

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => string;
}

interface Doc {
  source: string;
  index: number;
  object: Obj;
}

interface Checker {
  /** `Kind` or `Kind.group` as upstream names it in Invalid errors. */
  qualifiedKind: string;
  check(obj: Obj, old: Obj | undefined): { errors: FieldError[]; warnings: string[] };
}

class UsageError extends Error {}
class InputError extends Error {}

/** Upstream's aggregate: identical texts once; one error bare, several as `[a, b]`. */
export function formatErrors(errors: readonly FieldError[]): string {
  const texts = [...new Set(errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)))];
  return texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
}

function parseDocs(text: string, source: string): Doc[] {
  const out: Doc[] = [];
  const docs = parseAllDocuments(text, { intAsBigInt: false });
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((d, index) => {
    if (d.errors.length) throw new InputError(`${source}: document ${index}: ${d.errors[0].message}`);
    const value = d.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) return;
    if (!isObj(value)) throw new InputError(`${source}: document ${index}: not an object`);
    if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
      value.items.forEach((item, j) => {
        if (!isObj(item)) throw new InputError(`${source}: document ${index}: items[${j}]: not an object`);
        out.push({ source: `${source}`, index, object: item });
      });
      return;
    }
    out.push({ source, index, object: value });
  });
  return out;
}

function readSource(file: string, io: CliIO): Doc[] {
  if (file === '-') return parseDocs(io.readStdin(), '<stdin>');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`${file}: ${(e as Error).message}`);
  }
  return parseDocs(text, file);
}

function listManifestFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (e) {
    throw new InputError(`${dir}: ${(e as Error).message}`);
  }
  const out: string[] = [];
  for (const name of entries.sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...listManifestFiles(p));
    else if (/\.(ya?ml|json)$/i.test(name)) out.push(p);
  }
  return out;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function builtinCheckers(): Map<string, Checker> {
  const map = new Map<string, Checker>();
  for (const mod of Object.values(validators)) {
    const ctx = mod.resourceContext;
    const apiVersion = ctx.group ? `${ctx.group}/${ctx.version}` : ctx.version;
    const crd = ctx.kind === 'CustomResourceDefinition';
    map.set(`${apiVersion}|${ctx.kind}`, {
      qualifiedKind: ctx.group ? `${ctx.kind}.${ctx.group}` : ctx.kind,
      check(obj, old) {
        const o = clone(obj);
        mod.applyDefaults(o);
        let errors: FieldError[];
        if (crd) errors = old ? validateCRDUpdate(o, old) : validateCRD(o);
        else if (old) {
          const oo = clone(old);
          mod.applyDefaults(oo);
          errors = mod.validateUpdate(o, oo);
        } else errors = mod.validate(o);
        return { errors, warnings: [] };
      },
    });
  }
  return map;
}

function customChecker(v: CustomResourceVersion): Checker {
  return {
    qualifiedKind: `${v.kind}.${v.group}`,
    check(obj, old) {
      const o = clone(obj);
      let oo: Obj | undefined;
      if (old) {
        oo = clone(old);
        v.prune(oo);
        v.applyDefaults(oo);
      }
      const r = v.write(o, oo);
      const warnings = r.pruned.map((p) => `unknown field ${JSON.stringify(p)}`);
      if (v.warning) warnings.unshift(v.warning);
      return { errors: r.errors, warnings };
    },
  };
}

const keyOf = (o: Obj): string => {
  const m = isObj(o.metadata) ? o.metadata : {};
  return `${String(o.apiVersion ?? '')}|${String(o.kind ?? '')}|${String(m.namespace ?? '')}|${String(m.name ?? '')}`;
};
const nameOf = (o: Obj): string => {
  const m = isObj(o.metadata) ? o.metadata : {};
  return typeof m.name === 'string' ? m.name : typeof m.generateName === 'string' ? m.generateName : '';
};

export function runValidate(args: string[], io: CliIO): number {
  let crdDir: string | undefined;
  let oldFile: string | undefined;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-h' || a === '--help') {
      io.stdout(USAGE);
      return 0;
    }
    if (a === '--crds' || a === '--old') {
      const v = args[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      if (a === '--crds') crdDir = v;
      else oldFile = v;
    } else if (a.startsWith('--crds=')) crdDir = a.slice(7);
    else if (a.startsWith('--old=')) oldFile = a.slice(6);
    else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown flag ${a}`);
    else files.push(a);
  }
  if (files.length === 0) throw new UsageError('no FILE given');
  if (files.filter((f) => f === '-').length > 1 || (oldFile === '-' && files.includes('-'))) throw new UsageError('standard input ("-") can be read only once');

  const checkers = builtinCheckers();
  let failed = false;
  const report = (d: Doc, qualifiedKind: string, errors: FieldError[]): void => {
    failed = true;
    io.stdout(`${d.source} (document ${d.index}): ${qualifiedKind} ${JSON.stringify(nameOf(d.object))} is invalid: ${formatErrors(errors)}\n`);
  };

  // CRDs first: each must be a valid CRD before its custom resources can be checked
  if (crdDir !== undefined) {
    const crdChecker = checkers.get('apiextensions.cluster.io/v1|CustomResourceDefinition')!;
    for (const f of listManifestFiles(crdDir)) {
      for (const d of readSource(f, io)) {
        if (d.object.kind !== 'CustomResourceDefinition') continue;
        const { errors } = crdChecker.check(d.object, undefined);
        if (errors.length) {
          report(d, crdChecker.qualifiedKind, errors);
          continue;
        }
        const crd = clone(d.object) as unknown as CustomResourceDefinition;
        for (const v of crd.spec.versions ?? []) {
          try {
            const served = buildCustomResourceVersion(crd, v.name);
            checkers.set(`${served.apiVersion}|${served.kind}`, customChecker(served));
          } catch (e) {
            report(d, crdChecker.qualifiedKind, [{ field: `spec.versions[${crd.spec.versions.indexOf(v)}]`, reason: 'InternalError', message: `Internal error: ${(e as Error).message}` }]);
          }
        }
      }
    }
  }

  const olds = new Map<string, Obj>();
  if (oldFile !== undefined) for (const d of readSource(oldFile, io)) olds.set(keyOf(d.object), d.object);

  let checked = 0;
  let invalid = 0;
  for (const f of files) {
    for (const d of readSource(f, io)) {
      checked++;
      const apiVersion = d.object.apiVersion;
      const kind = d.object.kind;
      if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
        invalid++;
        failed = true;
        io.stdout(`${d.source} (document ${d.index}): Object 'Kind' is missing or apiVersion is not set\n`);
        continue;
      }
      const checker = checkers.get(`${apiVersion}|${kind}`);
      if (!checker) {
        invalid++;
        failed = true;
        io.stdout(`${d.source} (document ${d.index}): no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}${crdDir === undefined ? ' (custom resources need --crds DIR)' : ''}\n`);
        continue;
      }
      const { errors, warnings } = checker.check(d.object, olds.get(keyOf(d.object)));
      for (const w of warnings) io.stderr(`Warning: ${d.source} (document ${d.index}): ${w}\n`);
      if (errors.length) {
        invalid++;
        report(d, checker.qualifiedKind, errors);
      }
    }
  }
  io.stdout(`${checked} object${checked === 1 ? '' : 's'} checked, ${invalid} invalid\n`);
  return failed ? 1 : 0;
}

/** The `clusterspec` command line. Returns the exit status. */
export function main(argv: string[], io: CliIO = defaultIO()): number {
  const [cmd, ...rest] = argv;
  try {
    if (cmd === undefined || cmd === '-h' || cmd === '--help' || cmd === 'help') {
      io.stdout(USAGE);
      return cmd === undefined ? 2 : 0;
    }
    if (cmd !== 'validate') throw new UsageError(`unknown command ${JSON.stringify(cmd)}`);
    return runValidate(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`error: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    if (e instanceof InputError) {
      io.stderr(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

function defaultIO(): CliIO {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    readStdin: () => readFileSync(0, 'utf8'),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
