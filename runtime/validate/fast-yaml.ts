// The fast paths of manifest reading: the scanner (manifest-scanner.ts) first; for what it declines,
// yaml's concrete syntax tree straight to data, without building the document model (nodes, then
// toJS), which is half of the library's parsing time. Only what manifests use is read here: block and
// flow maps and lists, plain, quoted and block scalars under the YAML 1.2 core schema. Anything else
// (anchors, aliases, tags, merge keys, complex keys, directives, duplicate keys, errors) returns
// undefined, and the file is parsed in full (documents.ts).
import { CST, LineCounter, Parser } from 'yaml';
import { plainScalar } from './core-schema.ts';
import type { DocumentValue } from './documents.ts';
import { scanManifests } from './manifest-scanner.ts';

class Unsupported extends Error {}

type Token = CST.Token;
type SourceToken = CST.SourceToken;

const IGNORABLE = new Set(['space', 'newline', 'comment', 'comma', 'seq-item-ind', 'explicit-key-ind', 'map-value-ind', 'doc-start', 'flow-map-end', 'flow-seq-end', 'byte-order-mark']);

/** Props before a node (`start`, `sep`) may only be layout: an anchor, a tag or anything else means the full parser. */
function checkProps(tokens: readonly SourceToken[] | undefined): void {
  if (!tokens) return;
  for (const t of tokens) if (!IGNORABLE.has(t.type)) throw new Unsupported(t.type);
}

function scalar(token: Token): unknown {
  if ('end' in token) checkProps(token.end);
  const r = CST.resolveAsScalar(token, true, () => {
    throw new Unsupported('scalar error');
  });
  if (!r) throw new Unsupported(token.type);
  return token.type === 'scalar' ? plainScalar(r.value) : r.value;
}

function key(token: Token | null | undefined): string {
  if (!token || !(token.type === 'scalar' || token.type === 'single-quoted-scalar' || token.type === 'double-quoted-scalar')) throw new Unsupported('key');
  // An implicit key is on one line; anything else is for the full parser's checks.
  if (token.source.includes('\n')) throw new Unsupported('multi-line key');
  const v = scalar(token);
  // A key the full parser would read as something other than the same string (1 vs "1", null, true): let it.
  if (typeof v !== 'string' || v === '<<' || v === '__proto__') throw new Unsupported('non-string key');
  return v;
}

/** Offsets to columns: block items must start at one column (the full parser reports it otherwise). */
let columnOf: (offset: number) => number = () => 0;

function aligned(offsets: number[]): void {
  if (offsets.some((o) => columnOf(o) !== columnOf(offsets[0]))) throw new Unsupported('items not aligned');
}

function value(token: Token | null | undefined, text: string): unknown {
  if (!token) return null;
  switch (token.type) {
    case 'scalar': case 'single-quoted-scalar': case 'double-quoted-scalar': case 'block-scalar':
      return scalar(token);
    case 'block-map': {
      aligned(token.items.map((i) => i.key?.offset ?? i.start[0]?.offset ?? token.offset));
      const out: Record<string, unknown> = {};
      for (const item of token.items) {
        checkProps(item.start);
        checkProps(item.sep);
        if (!item.sep?.some((t) => t.type === 'map-value-ind')) throw new Unsupported('map item without value');
        const k = key(item.key);
        if (Object.hasOwn(out, k)) throw new Unsupported('duplicate key');
        out[k] = value(item.value, text);
      }
      return out;
    }
    case 'block-seq':
      aligned(token.items.map((i) => i.start.find((t) => t.type === 'seq-item-ind')?.offset ?? token.offset));
      return token.items.map((item) => {
        checkProps(item.start);
        return value(item.value, text);
      });
    case 'flow-collection': {
      // Only a complete flow collection on one line: a missing bracket or a broken-up one is for the full parser's checks.
      const close = token.start.type === 'flow-seq-start' ? 'flow-seq-end' : 'flow-map-end';
      if (token.end[0]?.type !== close || text.slice(token.offset, token.end[0].offset).includes('\n')) throw new Unsupported('flow collection');
      checkProps(token.end.slice(1));
      if (token.start.type === 'flow-seq-start') {
        return token.items.map((item) => {
          checkProps(item.start);
          if (item.key || item.sep) throw new Unsupported('pair in a flow list');
          return value(item.value, text);
        });
      }
      const out: Record<string, unknown> = {};
      for (const item of token.items) {
        checkProps(item.start);
        checkProps(item.sep);
        const k = key(item.key);
        if (Object.hasOwn(out, k)) throw new Unsupported('duplicate key');
        out[k] = item.sep?.some((t) => t.type === 'map-value-ind') ? value(item.value, text) : null;
      }
      return out;
    }
    default:
      throw new Unsupported(token.type);
  }
}

/** The documents of a file read on a fast path, or undefined when the full parser must read it. */
export function fastManifests(text: string): DocumentValue[] | undefined {
  return scanManifests(text) ?? treeManifests(text);
}

/** The documents of a file read from yaml's concrete syntax tree, or undefined. */
export function treeManifests(text: string): DocumentValue[] | undefined {
  const lines = new LineCounter();
  const at = (offset: number): { line: number; column: number } => {
    const p = lines.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const documents: DocumentValue[] = [];
  columnOf = (offset) => lines.linePos(offset).col;
  try {
    for (const token of new Parser(lines.addNewLine).parse(text)) {
      if (token.type === 'comment' || token.type === 'space' || token.type === 'newline' || token.type === 'byte-order-mark') continue;
      if (token.type === 'doc-end') continue;
      if (token.type !== 'document') throw new Unsupported(token.type);
      checkProps(token.start);
      checkProps(token.end);
      const contents = token.value;
      const data = value(contents, text);
      // An empty document's place is where its (empty) content would start: after its `---`.
      const marker = token.start.find((t) => t.type === 'doc-start');
      const d: DocumentValue = { index: documents.length, value: data, duplicates: [], position: at(contents ? contents.offset : marker ? marker.offset + marker.source.length : token.offset) };
      if (contents?.type === 'block-map' || contents?.type === 'flow-collection') {
        const items = contents.items.find((i) => i.key && 'source' in i.key && i.key.source === 'items')?.value;
        if (items?.type === 'block-seq' || items?.type === 'flow-collection') d.itemPositions = items.items.map((i) => at(i.value ? i.value.offset : items.offset));
      }
      documents.push(d);
    }
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
  return documents;
}
