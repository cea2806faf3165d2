// RE2JS (@bufbuild/re2) parses a run of literal characters by copying the run so far for every
// character it adds (Parser.maybeConcat / concatRunes): quadratic, measured 155 ms for a 10,000-
// character literal, 3 s for 30,000, 38 s for 100,000, all on the event loop when a CRD is written.
// Go's parser (upstream) is linear. Splitting long runs with empty groups `(?:)` bounds each run:
// `(?:)` matches the empty string, so the pattern means the same, and the parser then merges at
// most RUN characters at a time.

/** Longest run of plain literal characters left unsplit. */
const RUN = 64;

/** Characters with a meaning in RE2 syntax outside a class; a literal run is made of none of them. */
const META = new Set(['\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$']);

/** True for a character that can follow a literal as a quantifier (`{` conservatively, even when it is not one). */
const QUANTIFIER = new Set(['*', '+', '?', '{']);

/**
 * The pattern with `(?:)` inserted inside every run of more than RUN plain literal characters
 * outside character classes, escapes and `\Q…\E`, never before a character that a quantifier
 * follows. Returns the pattern itself when it has no such run (nearly always).
 */
export function splitLiteralRuns(pattern: string): string {
  if (pattern.length <= RUN) return pattern;
  let out = '';
  let last = 0;
  let run = 0;
  let inClass = false;
  const n = pattern.length;
  for (let i = 0; i < n; i++) {
    const c = pattern[i];
    if (inClass) {
      if (c === '\\') i++;
      else if (c === ']') inClass = false;
      continue;
    }
    if (c === '\\') {
      run = 0;
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        i = end === -1 ? n : end + 1;
      } else i++;
      continue;
    }
    if (c === '[') {
      run = 0;
      inClass = true;
      // `[]a]` and `[^]a]`: a `]` first in the class is a literal
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
      continue;
    }
    if (META.has(c)) {
      run = 0;
      continue;
    }
    if (run >= RUN && !QUANTIFIER.has(pattern[i + 1] ?? '')) {
      out += pattern.slice(last, i) + '(?:)';
      last = i;
      run = 0;
    }
    run++;
  }
  return last === 0 ? pattern : out + pattern.slice(last);
}
