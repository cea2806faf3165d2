// One validation run: reads every input, validates every object as the server validates a create
// (or an update, with --old), and returns a result per object with its findings. Nothing here
// prints or exits: generators/cli/commands/validate.ts does, through the reporters.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Document } from 'yaml';
import type { CustomResourceDefinition } from '../crd/types.ts';
import type { FieldError } from '../schema/types.ts';
import { builtinCheckers, checkerKey, crdCheckers, CRD_KEY, type Checker, type GeneratedValidators, type Obj } from './checkers.ts';
import { isObject } from '../json/is-object.ts';
import { asClusterCrd, isCrdObject } from './crd-flavor.ts';
import { parseManifests, type DocumentValue, type ParsedFile } from './documents.ts';
import { fastManifests } from './fast-yaml.ts';
import { INPUT_REASONS, type Finding, type InputReason, type ObjectRef, type Result, type RunReport } from './findings.ts';
import { collectInputs, type Input } from './inputs.ts';
import { formatFieldPath, nodeAt, parseFieldPath, positionOf, type PathSegment, type Position } from './positions.ts';

export interface RunOptions {
  /** The generated validators of the built-in kinds (out/validators/index.ts), handed in by the CLI. */
  validators: GeneratedValidators;
  /** Files, directories (walked for .yaml/.yml/.json) and `-` for standard input. */
  operands: string[];
  crdDirs: string[];
  oldFile?: string;
  /** Unknown and duplicate fields are errors (the server's fieldValidation=Strict); otherwise warnings (Warn, its default). */
  strict: boolean;
  /** Files larger than this are reported, not read. */
  maxFileBytes: number;
  readStdin: () => string;
  /** Relative operands, --crds and --old resolve against it (default: the process's). */
  cwd?: string;
}

export const DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;

/** A file being validated: its name, and its full parse (with the YAML nodes that locate findings), made once when first needed. */
interface Source {
  file: string;
  full(): ParsedFile;
}

const sourceOf = (file: string, parse: () => ParsedFile): Source => {
  let parsed: ParsedFile | undefined;
  return { file, full: () => (parsed ??= parse()) };
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function refOf(o: Obj): ObjectRef {
  const m = isObject(o.metadata) ? o.metadata : {};
  const ref: ObjectRef = {};
  const apiVersion = str(o.apiVersion);
  const kind = str(o.kind);
  const namespace = str(m.namespace);
  const name = str(m.name) ?? str(m.generateName);
  if (apiVersion) ref.apiVersion = apiVersion;
  if (kind) ref.kind = kind;
  if (namespace) ref.namespace = namespace;
  if (name) ref.name = name;
  return ref;
}

const identityKey = (o: Obj): string => {
  const r = refOf(o);
  return `${r.apiVersion ?? ''}|${r.kind ?? ''}|${r.namespace ?? ''}|${r.name ?? ''}`;
};

export class Validation {
  private readonly checkers: Map<string, Checker>;
  private readonly olds = new Map<string, Obj>();
  readonly results: Result[] = [];
  readonly files: string[] = [];
  internalError = false;

  private readonly cwd: string;

  constructor(private readonly opts: RunOptions) {
    this.cwd = opts.cwd ?? process.cwd();
    this.checkers = builtinCheckers(opts.validators);
  }

  run(): RunReport {
    const started = performance.now();
    this.prepare();
    this.validateInputs(collectInputs(this.opts.operands, this.cwd));
    return { strict: this.opts.strict, files: this.files, results: this.results, durationMs: performance.now() - started, internalError: this.internalError };
  }

  /** Reads the CRDs of --crds (their problems become results) and the old objects of --old. */
  prepare(): void {
    for (const dir of this.opts.crdDirs) this.loadCrds(dir);
    if (this.opts.oldFile !== undefined) this.loadOld(this.opts.oldFile);
  }

  validateInputs(inputs: readonly Input[]): void {
    for (const input of inputs) this.validateInput(input);
  }

  /** Reads and parses an input; undefined (reported) when it cannot be read. */
  private readInput(input: Input): { source: Source; documents: DocumentValue[] } | undefined {
    const text = this.readText(input);
    if (text === undefined) return undefined;
    const source = sourceOf(input.path, () => parseManifests(text));
    // Most manifests are read on the fast path; the full parse runs only for a file that needs it or has findings.
    return { source, documents: fastManifests(text) ?? source.full().documents };
  }

  /** The text of an input, or undefined once its problem is reported (unreadable, over the size limit). */
  readText(input: Input): string | undefined {
    if (input.kind === 'problem') {
      this.inputProblem(input.path, input.reason, input.message);
      return undefined;
    }
    if (input.kind === 'file' && input.size > this.opts.maxFileBytes) {
      this.inputProblem(input.path, 'FileTooLarge', `the file has ${input.size} bytes, more than the limit of ${this.opts.maxFileBytes} (--max-file-size)`);
      return undefined;
    }
    try {
      return input.kind === 'stdin' ? this.opts.readStdin() : readFileSync(input.abs, 'utf8');
    } catch (e) {
      this.inputProblem(input.path, 'Unreadable', (e as Error).message);
      return undefined;
    }
  }

  private inputProblem(file: string, reason: InputReason, message: string): void {
    this.files.push(file);
    const f: Finding = { file, document: null, line: 1, column: 1, field: '', reason, severity: 'error', message };
    this.results.push({ file, document: null, line: 1, column: 1, verdict: 'error', findings: [f] });
  }

  private loadCrds(dir: string): void {
    const crdChecker = this.checkers.get(CRD_KEY)!;
    for (const input of collectInputs([dir], this.cwd)) {
      const read = this.readInput(input);
      if (!read) continue;
      for (const d of read.documents) {
        if (d.syntaxError) {
          this.documentProblem(read.source, d, 'YAMLSyntaxError', d.syntaxError.message, d.syntaxError);
          continue;
        }
        if (!isCrdObject(d.value)) continue;
        const crd = asClusterCrd(d.value);
        const { errors } = crdChecker.check(crd, undefined);
        if (errors.length) {
          this.objectResult(read.source, d, [], crd, crdChecker.qualifiedKind, errors, [], undefined);
          continue;
        }
        for (const built of crdCheckers(structuredClone(crd) as unknown as CustomResourceDefinition)) {
          if ('key' in built) this.checkers.set(built.key, built.checker);
          else this.objectResult(read.source, d, [], crd, crdChecker.qualifiedKind, [{ field: `spec.versions[${built.version}]`, reason: 'InternalError', message: `Internal error: ${built.error}` }], [], undefined);
        }
      }
    }
  }

  private loadOld(file: string): void {
    const read = this.readInput(file === '-' ? { kind: 'stdin', path: '<stdin>' } : { kind: 'file', path: file, abs: resolve(this.cwd, file), size: 0 });
    for (const d of read?.documents ?? []) {
      for (const { object } of this.objectsOf(d)) if (object) this.olds.set(identityKey(object), object);
    }
  }

  /** The objects of a document: itself, or each item of a List; `base` is the item's path in the document. */
  private objectsOf(d: DocumentValue): Array<{ base: PathSegment[]; object?: Obj }> {
    const v = d.value;
    if (!isObject(v)) return [];
    if (typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items)) {
      return v.items.map((item, j) => ({ base: ['items', j], ...(isObject(item) ? { object: item } : {}) }));
    }
    return [{ base: [], object: v }];
  }

  private validateInput(input: Input): void {
    const read = this.readInput(input);
    if (read) this.validateDocuments(read.source, read.documents);
  }

  private validateDocuments(source: Source, documents: DocumentValue[]): void {
    const read = { source, documents };
    this.files.push(read.source.file);
    for (const d of read.documents) {
      if (d.syntaxError) {
        this.documentProblem(read.source, d, 'YAMLSyntaxError', d.syntaxError.message, d.syntaxError);
        continue;
      }
      if (d.value === null || d.value === undefined) continue;
      if (!isObject(d.value)) {
        this.documentProblem(read.source, d, 'NotAnObject', `the document is a ${Array.isArray(d.value) ? 'list' : typeof d.value}, not an object`);
        continue;
      }
      for (const { base, object } of this.objectsOf(d)) {
        if (!object) {
          this.documentProblem(read.source, d, 'NotAnObject', `${formatFieldPath(base)}: not an object`, undefined, base);
          continue;
        }
        this.validateObject(read.source, d, base, object);
      }
    }
  }

  private validateObject(source: Source, d: DocumentValue, base: PathSegment[], object: Obj): void {
    const ref = refOf(object);
    if (!ref.apiVersion || !ref.kind) {
      this.documentProblem(source, d, 'MissingTypeMeta', "Object 'Kind' is missing or apiVersion is not set", undefined, base, ref);
      return;
    }
    const checker = this.checkers.get(checkerKey(ref.apiVersion, ref.kind));
    if (!checker) {
      const hint = this.opts.crdDirs.length ? '' : ' (custom resources need --crds DIR)';
      this.documentProblem(source, d, 'UnknownKind', `no kind ${JSON.stringify(ref.kind)} is registered for version ${JSON.stringify(ref.apiVersion)}${hint}`, undefined, base, ref);
      return;
    }
    let result;
    try {
      result = checker.check(object, this.olds.get(identityKey(object)));
    } catch (e) {
      this.internalError = true;
      this.documentProblem(source, d, 'InternalError', `the validator failed: ${(e as Error).message}`, undefined, base, ref);
      return;
    }
    const duplicates = d.duplicates.filter((x) => base.every((seg, i) => x.path[i] === seg));
    this.objectResult(source, d, base, object, checker.qualifiedKind, result.errors, result.unknownFields, result.warning, duplicates);
  }

  private objectResult(
    source: Source, d: DocumentValue, base: PathSegment[], object: Obj, qualifiedKind: string, errors: FieldError[], unknownFields: string[], warning: string | undefined,
    duplicates: DocumentValue['duplicates'] = [],
  ): void {
    const ref = refOf(object);
    const at = (field: string, key = false): Position => {
      const full = source.full();
      const parsed = full.documents[d.index];
      return positionOf(nodeAt(parsed.doc as Document, base, parseFieldPath(field), key), full.lines, parsed.start);
    };
    const finding = (field: string, reason: string, severity: Finding['severity'], message: string, pos = at(field)): Finding =>
      ({ file: source.file, document: d.index, ...pos, ...ref, field, reason, severity, message });
    const loose = this.opts.strict ? 'error' : 'warning';
    const findings: Finding[] = [
      ...errors.map((e) => finding(e.field, e.reason, 'error', e.message)),
      ...unknownFields.map((p) => finding(p, 'UnknownField', loose, `unknown field ${JSON.stringify(p)}`, at(p, true))),
      ...duplicates.map((x) => {
        const field = formatFieldPath(x.path.slice(base.length));
        return finding(field, 'DuplicateField', loose, `duplicate field ${JSON.stringify(field)}`, { line: x.line, column: x.column });
      }),
      ...(warning ? [finding('', 'DeprecatedVersion', 'warning', warning)] : []),
    ];
    const pos = objectPosition(d, base);
    this.results.push({
      file: source.file, document: d.index, ...pos, ...ref, qualifiedKind,
      verdict: findings.some((f) => f.severity === 'error') ? 'invalid' : 'valid',
      findings,
    });
  }

  private documentProblem(source: Source, d: DocumentValue, reason: InputReason, message: string, pos?: Position, base: PathSegment[] = [], ref: ObjectRef = {}): void {
    const where = pos ? { line: pos.line, column: pos.column } : objectPosition(d, base);
    const f: Finding = { file: source.file, document: d.index, ...where, ...ref, field: '', reason, severity: 'error', message };
    this.results.push({ file: source.file, document: d.index, ...where, ...ref, verdict: 'error', findings: [f] });
  }
}

/** Where an object starts: the document's content, or its item of a List. */
function objectPosition(d: DocumentValue, base: PathSegment[]): Position {
  const item = base.length === 2 && base[0] === 'items' && typeof base[1] === 'number' ? d.itemPositions?.[base[1]] : undefined;
  const p = item ?? d.position;
  return { line: p.line, column: p.column };
}

export function runValidation(opts: RunOptions): RunReport {
  return new Validation(opts).run();
}

export { INPUT_REASONS };
