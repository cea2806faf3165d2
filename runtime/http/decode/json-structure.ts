// Linear, iterative passes over a JSON text that JSON.parse accepted (or is about to be given):
// object members counted (the cheap half of duplicate detection), nesting depth against a limit,
// the first number literal out of float64 range, and — only when the counts disagree — the exact
// duplicate fields with upstream's paths.

/** One key given twice in the same object. */
export interface DuplicateField {
  /** Upstream's strict-decoding path: `metadata.name`, `spec.items[0].name`, `[0].op`. */
  path: string;
  /** The key itself. */
  key: string;
  /** 1-based line of the repeated key (go-yaml's messages say the line). */
  line: number;
}

/** Upstream keeps at most this many strict-decoding errors per request. */
export const MAX_DUPLICATES_REPORTED = 100;

/** Index of the quote that closes the string opened at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let end = open;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end === -1) return -1;
    let backslashes = 0;
    for (let k = end - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if ((backslashes & 1) === 0) return end;
  }
}

/** Every `:` in the text, strings included: an upper bound of the members, counted by native hops. */
export function countColons(text: string): number {
  let count = 0;
  for (let i = text.indexOf(':'); i !== -1; i = text.indexOf(':', i + 1)) count++;
  return count;
}

/**
 * Members of all objects: in valid JSON every `:` outside a string separates one key from its
 * value. Hops between quotes and colons with indexOf, so a 2 KB body costs a few dozen steps.
 */
export function countMembers(text: string): number {
  let count = 0;
  let colon = text.indexOf(':');
  let quote = text.indexOf('"');
  while (colon !== -1) {
    if (quote !== -1 && quote < colon) {
      const end = stringEnd(text, quote);
      if (end === -1) return count;
      if (colon < end) colon = text.indexOf(':', end + 1);
      quote = text.indexOf('"', end + 1);
    } else {
      count++;
      colon = text.indexOf(':', colon + 1);
    }
  }
  return count;
}

/** True when brackets outside strings nest deeper than `max` anywhere in the text. */
export function exceedsDepth(text: string, max: number): boolean {
  // Each level needs one opening bracket: a shorter text cannot be deeper.
  if (text.length <= max) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end === -1) return false;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The first number literal outside strings that float64 cannot hold (it parses to ±Infinity). */
export function firstNumberOutOfRange(text: string): string | undefined {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) continue;
      if (!Number.isFinite(Number(m[0]))) return m[0];
      i += m[0].length - 1;
    }
  }
  return undefined;
}

type Frame = { object: true; path: string; keys: Set<string>; key: string; expectKey: boolean } | { object: false; path: string; index: number };

function childPath(frame: Frame): string {
  if (frame.object) return frame.path ? `${frame.path}.${frame.key}` : frame.key;
  return `${frame.path}[${frame.index}]`;
}

/** Every key repeated within one object of a valid JSON text, in order, deduplicated, at most 100. */
export function findJsonDuplicates(text: string): DuplicateField[] {
  const out: DuplicateField[] = [];
  const seen = new Set<string>();
  const stack: Frame[] = [];
  const n = text.length;
  // Raw newlines only occur between tokens in valid JSON, so counting them here gives the line.
  let line = 1;
  for (let i = 0; i < n && out.length < MAX_DUPLICATES_REPORTED; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x0a) line++;
    else if (c === 0x7b || c === 0x5b) {
      const path = top ? childPath(top) : '';
      stack.push(c === 0x7b ? { object: true, path, keys: new Set(), key: '', expectKey: true } : { object: false, path, index: 0 });
    } else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x2c && top) {
      if (top.object) top.expectKey = true;
      else top.index++;
    } else if (c === 0x3a && top?.object) top.expectKey = false;
    else if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end === -1) break;
      if (top?.object && top.expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        top.key = key;
        if (top.keys.has(key)) {
          const path = childPath(top);
          if (!seen.has(path)) {
            seen.add(path);
            out.push({ path, key, line });
          }
        } else top.keys.add(key);
      }
      i = end;
    }
  }
  return out;
}
