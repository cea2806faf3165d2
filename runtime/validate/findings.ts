// What a validation run reports: one result per document (or per file that could not be read), each
// with its findings. Reporters (generators/cli/reporters) render these; the JSON report is this data.

/**
 * Stable reason codes. Field errors carry upstream's field.ErrorType reasons (`FieldValueInvalid`,
 * ...); the rest describe input that could not be validated or strict decoding.
 */
export const INPUT_REASONS = {
  YAMLSyntaxError: 'the document is not valid YAML or JSON',
  NotAnObject: 'the document is not a map (an object)',
  MissingTypeMeta: 'the document has no apiVersion or no kind',
  UnknownKind: 'no validator for this apiVersion and kind (custom resources need --crds DIR)',
  FileTooLarge: 'the file is larger than --max-file-size',
  Unreadable: 'the file or directory cannot be read',
  SymlinkLoop: 'a symbolic link loops back to a directory already being read',
  UnknownField: 'a field the schema does not know (dropped by the server; an error with --strict)',
  DuplicateField: 'a key given twice in one map (the last one wins on the server; an error with --strict)',
  DeprecatedVersion: 'the apiVersion is deprecated (the warning the server sends)',
  InternalError: 'the validator failed unexpectedly',
} as const;

export type InputReason = keyof typeof INPUT_REASONS;

export type Severity = 'error' | 'warning';

/** The object a finding is about, as far as the document names it. */
export interface ObjectRef {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

export interface Finding extends ObjectRef {
  file: string;
  /** 0-based index of the YAML document in the file; null for a problem with the file itself. */
  document: number | null;
  /** 1-based line and column of the offending node. */
  line: number;
  column: number;
  /** The field path in upstream's form (`spec.ports[0].name`); "" for the object or document itself. */
  field: string;
  reason: string;
  severity: Severity;
  message: string;
}

export type Verdict = 'valid' | 'invalid' | 'error';

/** One validated object (a List's items each have one), or one document or file that could not be validated. */
export interface Result extends ObjectRef {
  file: string;
  document: number | null;
  line: number;
  column: number;
  /** `Kind` or `Kind.group` as upstream names it in Invalid errors; absent when the kind is unknown. */
  qualifiedKind?: string;
  /** valid: no error findings; invalid: the object breaks a rule; error: it could not be validated. */
  verdict: Verdict;
  findings: Finding[];
}

export interface RunReport {
  strict: boolean;
  files: string[];
  results: Result[];
  durationMs: number;
  /** Set when a validator failed unexpectedly (exit status 3). */
  internalError: boolean;
  /** Threads that validated inputs (this one and the workers that took a chunk: parallel.ts); absent means one. */
  threads?: number;
}

export function countVerdicts(results: readonly Result[]): Record<Verdict, number> {
  const counts: Record<Verdict, number> = { valid: 0, invalid: 0, error: 0 };
  for (const r of results) counts[r.verdict]++;
  return counts;
}
