// One validation run: reads every input, validates every object as the server validates a create
// (or an update, with --old), and returns a result per object with its findings. Nothing here
// prints or exits: generators/cli/commands/validate.ts does, through the reporters.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CustomResourceDefinition } from '../crd/types.ts';
import type { FieldError } from '../schema/types.ts';
import { builtinCheckers, checkerKey, crdCheckers, CRD_KEY, type Checker, type GeneratedValidators, type Obj } from './checkers.ts';
import { isObject } from '../json/is-object.ts';
import { asClusterCrd, isCrdObject } from './crd-flavor.ts';
import { parseDocumentAlone, parseManifests, type DocumentValue, type LocatedDocument, type ParsedFile } from './documents.ts';
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

/** The files and results of a chunk of inputs, and whether a validator failed on one of them. */
export interface ChunkResult {
  files: string[];
  results: Result[];
  internalError: boolean;
}

/** A file being validated: its name, its full parse (made once when first needed), and the nodes of a document. */
interface Source {
  file: string;
  full(): ParsedFile;
  locate(d: DocumentValue): LocatedDocument;
}

function sourceOf(file: string, text: string): Source {
  let parsed: ParsedFile | undefined;
  const alone = new Map<number, LocatedDocument>();
  const full = (): ParsedFile => (parsed ??= parseManifests(text));
  return {
    file,
    full,
    locate(d) {
      if (d.span && !parsed) {
        let located = alone.get(d.index);
        // The scanner read the file: its document alone is parsed (one of ten when one of ten has findings).
        if (!located) alone.set(d.index, (located = parseDocumentAlone(text, d.span)));
        return located;
      }
      const p = full().documents[d.index];
      return { doc: p.doc, lines: full().lines, start: p.start };
    },
  };
}

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
    return this.report(started);
  }

  /** What the run found: every result so far; `started` is when it began (performance.now()). */
  report(started: number): RunReport {
    return { strict: this.opts.strict, files: this.files, results: this.results, durationMs: performance.now() - started, internalError: this.internalError };
  }

  /** The inputs the operands name (directories walked), relative to the run's folder. */
  inputs(): Input[] {
    return collectInputs(this.opts.operands, this.cwd);
  }

  /** Reads the CRDs of --crds (their problems become results) and the old objects of --old. */
  prepare(): void {
    for (const dir of this.opts.crdDirs) this.loadCrds(dir);
    if (this.opts.oldFile !== undefined) this.loadOld(this.opts.oldFile);
  }

  validateInputs(inputs: readonly Input[]): void {
    for (const input of inputs) this.validateInput(input);
  }

  /** Validates `inputs` on their own and hands back what they gave (a chunk of a run spread over threads: parallel.ts). */
  validateChunk(inputs: readonly Input[]): ChunkResult {
    const files = this.files.length;
    const results = this.results.length;
    const failedBefore = this.internalError;
    this.internalError = false;
    this.validateInputs(inputs);
    const chunk = { files: this.files.splice(files), results: this.results.splice(results), internalError: this.internalError };
    this.internalError = failedBefore || chunk.internalError;
    return chunk;
  }

  /** Adds a chunk's files and results after those so far (in the order of the inputs). */
  addChunk(chunk: ChunkResult): void {
    this.files.push(...chunk.files);
    for (const r of chunk.results) this.results.push(r);
    if (chunk.internalError) this.internalError = true;
  }

  /** Reads and parses an input; undefined (reported) when it cannot be read. */
  private readInput(input: Input): { source: Source; documents: DocumentValue[] } | undefined {
    const text = this.readText(input);
    if (text === undefined) return undefined;
    const source = sourceOf(input.path, text);
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
      result = checker.check(object, this.olds.size ? this.olds.get(identityKey(object)) : undefined);
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
    // Most objects have nothing to report: no findings to build, no positions to look up.
    const findings = errors.length || unknownFields.length || duplicates.length || warning ? this.findingsOf(source, d, base, ref, errors, unknownFields, warning, duplicates) : [];
    const pos = objectPosition(d, base);
    this.results.push({
      file: source.file, document: d.index, ...pos, ...ref, qualifiedKind,
      verdict: findings.some((f) => f.severity === 'error') ? 'invalid' : 'valid',
      findings,
    });
  }

  private findingsOf(
    source: Source, d: DocumentValue, base: PathSegment[], ref: ObjectRef, errors: FieldError[], unknownFields: string[], warning: string | undefined,
    duplicates: DocumentValue['duplicates'],
  ): Finding[] {
    const at = (field: string, key = false): Position => {
      const located = source.locate(d);
      return positionOf(nodeAt(located.doc, base, parseFieldPath(field), key), located.lines, located.start);
    };
    const finding = (field: string, reason: string, severity: Finding['severity'], message: string, pos = at(field)): Finding =>
      ({ file: source.file, document: d.index, ...pos, ...ref, field, reason, severity, message });
    const loose = this.opts.strict ? 'error' : 'warning';
    return [
      ...errors.map((e) => finding(e.field, e.reason, 'error', e.message)),
      ...unknownFields.map((p) => finding(p, 'UnknownField', loose, `unknown field ${JSON.stringify(p)}`, at(p, true))),
      ...duplicates.map((x) => {
        const field = formatFieldPath(x.path.slice(base.length));
        return finding(field, 'DuplicateField', loose, `duplicate field ${JSON.stringify(field)}`, { line: x.line, column: x.column });
      }),
      ...(warning ? [finding('', 'DeprecatedVersion', 'warning', warning)] : []),
    ];
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
