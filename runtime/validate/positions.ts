// Where a field sits in its YAML text: upstream field paths (`spec.ports[0].name`, `data[bad key]`)
// to the line and column of the node, and a key's offset back to its field path (duplicate keys).
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export type PathSegment = string | number;

export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/** Splits an upstream field path into keys and indices; `[x]` with a non-numeric x is a map key. */
export function parseFieldPath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  let i = 0;
  let word = '';
  const flush = (): void => {
    if (word) out.push(word);
    word = '';
  };
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      flush();
      i++;
    } else if (c === '[') {
      flush();
      const end = path.indexOf(']', i + 1);
      const inner = end < 0 ? path.slice(i + 1) : path.slice(i + 1, end);
      out.push(/^\d+$/.test(inner) ? Number(inner) : inner);
      i = end < 0 ? path.length : end + 1;
    } else {
      word += c;
      i++;
    }
  }
  flush();
  return out;
}

/** Renders segments in upstream's form: `a.b[0][key with space]` (keys with dots or spaces in brackets). */
export function formatFieldPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z0-9_$-]+$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${s}]`;
  }
  return out;
}

/**
 * The node at the path or, when the path does not exist (a missing required field), its deepest
 * existing ancestor. `key`: the map key of the last segment instead of its value (an unknown field).
 */
export function nodeAt(doc: Document, base: readonly PathSegment[], path: readonly PathSegment[], key = false): Node | undefined {
  let node = doc.contents as Node | null;
  let best: Node | undefined = node ?? undefined;
  const segments = [...base, ...path];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      node = key && i === segments.length - 1 ? (pair.key as Node) : ((pair.value as Node | null) ?? (pair.key as Node));
    } else if (isSeq(node) && typeof seg === 'number') {
      node = (node.items[seg] as Node | undefined) ?? null;
      if (!node) break;
    } else break;
    if (node) best = node;
  }
  return best;
}

/** `lines`: a LineCounter, or anything that turns offsets into lines and columns (a document parsed apart from its file). */
export function positionOf(node: Node | undefined, lines: Pick<LineCounter, 'linePos'>, fallbackOffset: number): Position {
  const offset = node?.range?.[0] ?? fallbackOffset;
  const p = lines.linePos(offset);
  return { line: p.line, column: p.col };
}

/** The field path of the map key starting at `offset` (a duplicate key error points at it). */
export function pathOfKeyAt(doc: Document, offset: number): PathSegment[] | undefined {
  const search = (node: unknown, path: PathSegment[]): PathSegment[] | undefined => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key as Node | null;
        const name = isScalar(key) ? String(key.value) : '';
        if (key?.range && key.range[0] === offset) return [...path, name];
        const value = pair.value as Node | null;
        if (value?.range && value.range[0] <= offset && offset < value.range[2]) return search(value, [...path, name]);
      }
    } else if (isSeq(node)) {
      for (let i = 0; i < node.items.length; i++) {
        const item = node.items[i] as Node | null;
        if (item?.range && item.range[0] <= offset && offset < item.range[2]) return search(item, [...path, i]);
      }
    }
    return undefined;
  };
  return search(doc.contents, []);
}
