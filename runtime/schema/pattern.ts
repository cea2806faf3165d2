// The `pattern` keyword through RE2 (@bufbuild/re2, the engine the CEL layer uses): linear time in
// the input whatever the pattern, and Go's regexp syntax and semantics, as upstream's kube-openapi
// matches it (unanchored search; `\s`, `\w`, `\d` ASCII; no lookaround, no backreferences). A user's
// pattern never reaches JS RegExp, whose backtracking is exponential on patterns like `^(a+)+$`.
import { RE2JS } from '@bufbuild/re2';
import { splitLiteralRuns } from './pattern-literal-runs.ts';

/** A compiled pattern: `test` is Go's regexp.MatchString. */
export interface CompiledPattern {
  readonly source: string;
  test(s: string): boolean;
}

export type PatternCompileResult = { ok: true; pattern: CompiledPattern } | { ok: false; error: string };

/** Compiled patterns by source, least recently used first; bounded so user patterns cannot grow it. */
const cache = new Map<string, CompiledPattern>();
const CACHE_LIMIT = 1024;

/**
 * Compiles a pattern as Go's regexp.Compile does. The error is Go's text
 * (`error parsing regexp: missing argument to repetition operator: \`+\``).
 */
export function compilePattern(source: string): PatternCompileResult {
  const hit = cache.get(source);
  if (hit) {
    cache.delete(source);
    cache.set(source, hit);
    return { ok: true, pattern: hit };
  }
  let re: RE2JS;
  // long literal runs split, so that RE2JS parses them in linear time (pattern-literal-runs.ts)
  const split = splitLiteralRuns(source);
  try {
    re = RE2JS.compile(split);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (split === source) return { ok: false, error: message };
    // Go's text quotes the pattern: without the inserted groups (the pattern's own `(?:)` can only come from itself)
    return source.includes('(?:)') ? compileError(source) : { ok: false, error: message.replaceAll('(?:)', '') };
  }
  const pattern: CompiledPattern = { source, test: (s: string) => re.test(s) };
  cache.set(source, pattern);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return { ok: true, pattern };
}

/** The compile error of the pattern as written. */
function compileError(source: string): PatternCompileResult {
  try {
    RE2JS.compile(source);
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  return { ok: false, error: 'error parsing regexp' };
}
