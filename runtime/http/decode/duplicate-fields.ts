// Duplicate keys found while decoding, handled per fieldValidation as upstream's strict decoders do:
// Strict fails the request, Warn (the default) adds a `Warning` per finding, Ignore says nothing.
// The wording follows the decoder upstream uses for the body: sigs.k8s.io/json for JSON
// (`duplicate field "metadata.name"`), go-yaml for YAML (`line 4: key "name" already set in map`).

import type { DuplicateField } from './json-structure.ts';

export type FieldValidationDirective = 'Strict' | 'Warn' | 'Ignore';

/** sigs.k8s.io/json's strict errors, one per field: `duplicate field "spec.x"`. */
export function jsonDuplicateErrors(duplicates: readonly DuplicateField[], prefix = ''): string[] {
  return duplicates.map((d) => `${prefix}duplicate field ${JSON.stringify(d.path)}`);
}

/** go-yaml's strict error, one for all: `yaml: unmarshal errors:\n  line 4: key "name" already set in map`. */
export function yamlDuplicateError(duplicates: readonly DuplicateField[]): string {
  return `yaml: unmarshal errors:${duplicates.map((d) => `\n  line ${d.line}: key ${JSON.stringify(d.key)} already set in map`).join('')}`;
}

/** Upstream's `strict decoding error: <e1>, <e2>`. */
export function strictDecodingError(errors: readonly string[]): string {
  return `strict decoding error: ${errors.join(', ')}`;
}

/** A Warning header carries one line: go-yaml's multi-line message is folded. */
export function warningText(message: string): string {
  return message.replace(/\n\s*/g, ' ');
}

/**
 * Applies the directive: with findings, Strict throws `fail(errors)`, Warn returns them as warning
 * texts, Ignore returns nothing.
 */
export function handleDuplicates(errors: readonly string[], directive: FieldValidationDirective, fail: (errors: readonly string[]) => Error): string[] {
  if (!errors.length || directive === 'Ignore') return [];
  if (directive === 'Strict') throw fail(errors);
  return errors.map(warningText);
}
