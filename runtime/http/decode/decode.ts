// Request-body decoding that no hostile body can crash, stall or turn into a 500.
//  JSON: JSON.parse (native, iterative) on the fast path; upstream's 10,000-level limit checked by a
//   linear scan first when the text is long enough to exceed it; syntax errors re-scanned for Go's
//   wording and a line/column instead of V8's message (which quotes the source); numbers out of
//   float64 range refused; duplicate keys found by comparing the text's member count with the
//   parsed object's (an exact, slower pass names them only on a mismatch).
//  YAML: JSON text goes the JSON way (kubectl's apply sends JSON as apply-patch+yaml); other YAML
//   is depth-bounded by an iterative pre-scan before the recursive `yaml` library sees it, with
//   aliases bounded, library errors stripped of their quoted source, and duplicate keys reported
//   as go-yaml reports them (by line).

import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node as YamlNode } from 'yaml';
import { DecodeError } from './decode-error.ts';
import { countColons, countMembers, type DuplicateField, exceedsDepth, findJsonDuplicates, firstNumberOutOfRange, MAX_DUPLICATES_REPORTED } from './json-structure.ts';
import { findJsonSyntaxError } from './json-syntax.ts';
import { MAX_NESTING_DEPTH, MAX_YAML_ALIAS_COUNT, MAX_YAML_ALIAS_WORK, MAX_YAML_EXPANDED_NODES, MAX_YAML_NESTING_DEPTH } from './limits.ts';
import { where } from './position.ts';
import { jsonValueFacts, walkValue } from './value-walk.ts';
import { takeOffloaded } from './yaml-offload.ts';
import { prescanYaml } from './yaml-prescan.ts';

export type { DuplicateField } from './json-structure.ts';

export interface Decoded {
  value: unknown;
  /** Keys given twice in one object (the decoded value keeps the last, as upstream's decoders do). */
  duplicates: DuplicateField[];
}

/** Longest number literal quoted back in an out-of-range message. */
const MAX_QUOTED_NUMBER = 40;

function jsonSyntaxFailure(text: string): DecodeError {
  const found = findJsonSyntaxError(text);
  // JSON.parse and the scanner disagree only on what JSON.parse cannot represent; say so without V8's quote.
  if (!found) return new DecodeError('json', 'syntax', 'invalid JSON');
  return new DecodeError('json', found.failure, `${found.message}${where(text, found.offset)}`);
}

function numberOutOfRange(text: string, value: unknown): DecodeError {
  const literal = firstNumberOutOfRange(text) ?? 'out of range';
  const shown = literal.length > MAX_QUOTED_NUMBER ? `${literal.slice(0, MAX_QUOTED_NUMBER)}...` : literal;
  return new DecodeError('json', 'number', `json: cannot unmarshal number ${shown} into Go value of type float64`, value);
}

/** Parses JSON text or throws a DecodeError; undefined (no throw) when `orUndefined` and it is not JSON. */
function parseJson(text: string, orUndefined: boolean): Decoded | undefined {
  if (exceedsDepth(text, MAX_NESTING_DEPTH)) {
    const failure = jsonSyntaxFailure(text);
    if (orUndefined && failure.failure !== 'depth') return undefined;
    throw failure;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (orUndefined) return undefined;
    throw jsonSyntaxFailure(text);
  }
  const facts = jsonValueFacts(value);
  if (facts.nonFinite !== undefined) throw numberOutOfRange(text, value);
  // Duplicates make the text hold more members than the value. All colons bound the text's members
  // from above, so equal counts settle it with native hops; strings with colons take the exact count.
  const noDuplicates = countColons(text) === facts.members || countMembers(text) === facts.members;
  const duplicates = noDuplicates ? [] : findJsonDuplicates(text);
  return { value, duplicates };
}

/** Decodes a JSON body; throws DecodeError (400 material) on anything upstream refuses. */
export function decodeJson(text: string): Decoded {
  return parseJson(text, false) as Decoded;
}

/** True when the text, after leading space, starts like a JSON object or array. */
export function looksLikeJson(text: string): boolean {
  const m = /\S/.exec(text);
  return m !== null && (m[0] === '{' || m[0] === '[');
}

function excessiveAliasing(): DecodeError {
  return new DecodeError('yaml', 'aliases', 'yaml: document contains excessive aliasing');
}

function yamlTooDeep(): DecodeError {
  return new DecodeError('yaml', 'depth', `yaml: exceeded max depth of ${MAX_YAML_NESTING_DEPTH}`);
}

/** go-yaml's `unsupported value` for the floats JSON cannot carry (`.inf`, `-.inf`, `.nan`). */
function unsupportedFloat(v: number): DecodeError {
  const shown = Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';
  return new DecodeError('yaml', 'number', `json: unsupported value: ${shown}`);
}

/** Duplicate scalar keys of every mapping of a composed document, by line, walked without recursion. */
function yamlDuplicates(doc: Document, lines: LineCounter): DuplicateField[] {
  const out: DuplicateField[] = [];
  const stack: { node: unknown; path: string }[] = [{ node: doc.contents, path: '' }];
  while (stack.length && out.length < MAX_DUPLICATES_REPORTED) {
    const { node, path } = stack.pop() as { node: unknown; path: string };
    if (isSeq(node)) {
      node.items.forEach((item, i) => stack.push({ node: item, path: `${path}[${i}]` }));
    } else if (isMap(node)) {
      const keys = new Set<string>();
      for (const pair of node.items) {
        const keyNode = pair.key;
        const key = isScalar(keyNode) ? String(keyNode.value) : undefined;
        const child = key === undefined ? path : path ? `${path}.${key}` : key;
        if (key !== undefined) {
          if (keys.has(key)) {
            const at = (keyNode as YamlNode).range?.[0] ?? 0;
            out.push({ path: child, key, line: lines.linePos(at).line });
          } else keys.add(key);
        }
        if (!isAlias(pair.value)) stack.push({ node: pair.value, path: child });
      }
    }
  }
  return out;
}

/** Library errors whose message embeds source text (an escape, a token, a tag): said without it. */
const QUOTING_ERRORS: Record<string, string> = {
  BAD_DQ_ESCAPE: 'invalid escape sequence in a double-quoted scalar',
  UNEXPECTED_TOKEN: 'unexpected token',
  TAG_RESOLVE_FAILED: 'unresolved tag',
  BAD_SCALAR_START: 'plain value cannot start with a reserved character',
  BAD_PROP_ORDER: 'anchors and tags must come after the indicator',
};

/** The library's message without any source text, placed as go-yaml's `yaml: line N: …`. */
function yamlSyntax(code: string, message: string, offset: number, lines: LineCounter): DecodeError {
  const what = QUOTING_ERRORS[code] ?? message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  return new DecodeError('yaml', 'syntax', `yaml: line ${lines.linePos(offset).line}: ${what}`);
}

/** Decodes a YAML body (one document; JSON text takes the JSON path); throws DecodeError. */
export function decodeYaml(text: string): Decoded {
  // decoded already on the worker thread while the request waited (large bodies, see yaml-offload.ts)
  const offloaded = takeOffloaded(text);
  if (offloaded?.kind === 'refused') throw new DecodeError(offloaded.format, offloaded.failure, offloaded.message);
  if (offloaded) return { value: offloaded.value, duplicates: offloaded.duplicates };
  if (looksLikeJson(text)) {
    const json = parseJson(text, true);
    if (json) return json;
  }
  const scan = prescanYaml(text, MAX_YAML_NESTING_DEPTH);
  if (scan.depthBound > MAX_YAML_NESTING_DEPTH) throw yamlTooDeep();
  // Each alias the library resolves walks the whole document: bound the product, as go-yaml bounds aliasing.
  if (scan.aliases > MAX_YAML_ALIAS_COUNT && scan.aliases * scan.tokens > MAX_YAML_ALIAS_WORK) throw excessiveAliasing();
  const lines = new LineCounter();
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { uniqueKeys: false, prettyErrors: false, lineCounter: lines }) as Document.Parsed[];
  } catch (e) {
    if (e instanceof RangeError) throw yamlTooDeep();
    throw e;
  }
  if (!Array.isArray(docs)) throw new DecodeError('yaml', 'syntax', 'yaml: empty document');
  const real = docs.filter((d) => d.contents !== null || d.errors.length);
  if (real.length === 0) return { value: null, duplicates: [] };
  const doc = real[0];
  if (doc.errors.length) {
    const err = doc.errors[0];
    if (/call stack/i.test(err.message)) throw yamlTooDeep();
    throw yamlSyntax(err.code, err.message, err.pos[0], lines);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof RangeError) throw yamlTooDeep();
    if (e instanceof ReferenceError && /alias/i.test(e.message)) {
      if (/Excessive/.test(e.message)) throw excessiveAliasing();
      throw new DecodeError('yaml', 'syntax', `yaml: ${e.message.split('\n')[0]}`);
    }
    throw e;
  }
  // Aliases can share subtrees: the expanded value may be deeper or larger than the text.
  const facts = walkValue(value, MAX_YAML_EXPANDED_NODES, MAX_NESTING_DEPTH);
  if (facts.overBudget) throw excessiveAliasing();
  if (facts.depth > MAX_NESTING_DEPTH) throw new DecodeError('yaml', 'depth', `yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`);
  if (facts.nonFinite !== undefined) throw unsupportedFloat(facts.nonFinite);
  return { value, duplicates: yamlDuplicates(doc, lines) };
}

// Compile the library's regular expressions now, on a shallow stack: compiled lazily at the end of
// a deep stack, V8's RegExp compiler can abort the process instead of throwing.
decodeYaml('a: {b: [1, "c", \'d\', e]}\nf: |\n  g\n? h\n: &i j\nk: *i\nl: 1.5e3\n');
