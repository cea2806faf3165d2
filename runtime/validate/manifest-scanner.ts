// The fastest reading of plain manifests: one pass over the text, line by line, straight to data,
// for the YAML that manifests are written in (block maps and lists, one-line flow collections,
// plain and one-line quoted scalars, literal and folded block scalars, comments, `---`). Anything
// else (anchors, tags, multi-line plain or quoted scalars, tabs, CR line ends, `...`, directives,
// duplicate or non-string keys, anything the yaml library would report) declines: the caller then
// reads the file the slower ways (fast-yaml.ts, then documents.ts), which give the same data.
import { plainScalar } from './core-schema.ts';
import type { DocumentValue } from './documents.ts';
import type { Position } from './positions.ts';

/** Thrown when the text leaves the subset; one instance, as it is thrown and caught in one place. */
class Decline extends Error {}
const DECLINE = new Decline('outside the manifest subset');
function decline(): never {
  throw DECLINE;
}

/** Characters the scanner never reads (tabs, CR, other controls, byte order marks, Unicode line separators). */
const UNSUPPORTED_CHARACTERS = /[\x00-\x09\x0B-\x1F\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]/;

const SPACE = 32, HASH = 35, COLON = 58, DASH = 45, COMMA = 44, DQUOTE = 34, SQUOTE = 39;
const LBRACKET = 91, RBRACKET = 93, LBRACE = 123, RBRACE = 125, PIPE = 124, GREATER = 62, BACKSLASH = 92;

/** Indicators a plain scalar may not start with here (`-` is checked apart: it may start `-1`). */
const NOT_PLAIN_START = new Set([...'?:,[]{}#&*!|>\'"%@`'].map((c) => c.charCodeAt(0)));
const FLOW_INDICATOR = new Set([COMMA, LBRACKET, RBRACKET, LBRACE, RBRACE]);

const ESCAPES = new Map(Object.entries({
  '0': '\0', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029', ' ': ' ', '"': '"', '/': '/', '\\': '\\',
}));
const HEX_DIGITS = /^[0-9a-fA-F]+$/;

/** Deeper than this, the file is left to the other readers (which have their own limits). */
const MAX_DEPTH = 200;
/** The longest implicit key YAML allows. */
const MAX_KEY_LENGTH = 1024;

type Obj = Record<string, unknown>;

class Scanner {
  /** The current line: [ls, le), its 1-based number, and (after skipBlank) its indentation. */
  private ls = 0;
  private le: number;
  private ln = 1;
  private sp = 0;
  private depth = 0;

  constructor(private readonly text: string) {
    this.le = this.lineEndFrom(0);
  }

  private lineEndFrom(start: number): number {
    const i = this.text.indexOf('\n', start);
    return i < 0 ? this.text.length : i;
  }

  private advance(): void {
    this.ls = this.le + 1;
    this.ln++;
    this.le = this.ls >= this.text.length ? this.text.length : this.lineEndFrom(this.ls);
  }

  private get eof(): boolean {
    return this.ls >= this.text.length;
  }

  private at(offset: number): Position {
    return { line: this.ln, column: offset - this.ls + 1 };
  }

  private skipSpaces(p: number): number {
    while (p < this.le && this.text.charCodeAt(p) === SPACE) p++;
    return p;
  }

  /** `---` (or `...`) at the start of the current line, followed by a space or the line end. */
  private marker(chars: string): boolean {
    const { text, ls, le } = this;
    return le - ls >= 3 && text.startsWith(chars, ls) && (le === ls + 3 || text.charCodeAt(ls + 3) === SPACE);
  }

  /** Skips blank and comment lines: 'content' (this.sp is its indentation), a document 'marker', or 'eof'. */
  private skipBlank(): 'content' | 'marker' | 'eof' {
    for (; !this.eof; this.advance()) {
      const p = this.skipSpaces(this.ls);
      if (p === this.le || this.text.charCodeAt(p) === HASH) continue;
      this.sp = p - this.ls;
      if (this.sp === 0) {
        if (this.marker('---')) return 'marker';
        if (this.marker('...')) decline();
      }
      return 'content';
    }
    return 'eof';
  }

  /** After a value that ends at `p`: only spaces and a comment may follow on its line; moves to the next line. */
  private endOfLine(p: number): void {
    const q = this.skipSpaces(p);
    if (q < this.le && (this.text.charCodeAt(q) !== HASH || q === p)) decline();
    this.advance();
  }

  private isSeqEntry(p: number): boolean {
    return this.text.charCodeAt(p) === DASH && (p + 1 === this.le || this.text.charCodeAt(p + 1) === SPACE);
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) decline();
  }

  documents(): DocumentValue[] {
    const out: DocumentValue[] = [];
    let state = this.skipBlank();
    // Text before any `---` is a document of its own; comments and blank lines alone are none.
    if (state === 'content') state = this.document(out, this.ls, this.ln);
    while (state === 'marker') {
      const markerEnd = this.ls + 3;
      const markerPosition = this.at(this.skipSpaces(markerEnd));
      this.endOfLine(markerEnd);
      const start = this.ls;
      const line = this.ln;
      state = this.skipBlank();
      if (state === 'content') state = this.document(out, start, line);
      // An empty document is placed where its content would start: after its `---` and the spaces after it.
      else out.push({ index: out.length, value: null, duplicates: [], position: markerPosition });
    }
    return out;
  }

  /** One document from the content line at hand; `start`/`line`: where its text starts (after its `---` line). */
  private document(out: DocumentValue[], start: number, line: number): 'marker' | 'eof' {
    const p = this.ls + this.sp;
    const position = this.at(p);
    const items: Position[] = [];
    const c = this.text.charCodeAt(p);
    let value: unknown;
    if (this.isSeqEntry(p)) value = this.blockSeq(this.sp);
    else if (c === LBRACKET || c === LBRACE) {
      // The items of a List written as one flow map are placed too; a list at the root has none.
      const r = c === LBRACE ? this.flowMap(p, items) : this.flowSeq(p);
      value = r.value;
      this.endOfLine(r.end);
    } else value = this.blockMap(this.sp, p, items);
    const state = this.skipBlank();
    if (state === 'content') decline();
    const d: DocumentValue = { index: out.length, value, duplicates: [], position, span: { start, end: state === 'eof' ? this.text.length : this.ls, line } };
    if (isObj(value) && Array.isArray(value.items)) d.itemPositions = items;
    out.push(d);
    return state;
  }

  /** A block map whose keys sit at column `indent`, the first at `keyAt` (on the current line). `items`: where the root's items start. */
  private blockMap(indent: number, keyAt: number, items?: Position[]): Obj {
    this.enter();
    const out: Obj = {};
    for (let p = keyAt; ; p = this.ls + indent) {
      const { key, after } = this.mapKey(p);
      if (key === '__proto__' || key === '<<' || Object.hasOwn(out, key)) decline();
      out[key] = this.mapValue(after, indent, key === 'items' ? items : undefined);
      if (this.skipBlank() !== 'content' || this.sp < indent) break;
      // Deeper: a continued plain scalar or bad indentation; a list entry here belongs to no key.
      if (this.sp > indent || this.isSeqEntry(this.ls + indent)) decline();
    }
    this.depth--;
    return out;
  }

  /** A key at `p` and its `:` (followed by a space or the line end): the key and the offset after the `:`. */
  private mapKey(p: number): { key: string; after: number } {
    const { text } = this;
    const c = text.charCodeAt(p);
    if (c === DQUOTE || c === SQUOTE) {
      const q = this.quoted(p);
      const colon = this.skipSpaces(q.end);
      if (text.charCodeAt(colon) !== COLON || !(colon + 1 === this.le || text.charCodeAt(colon + 1) === SPACE)) decline();
      return { key: q.value, after: colon + 1 };
    }
    if (NOT_PLAIN_START.has(c) || c === DASH) decline();
    // Flow indicators may follow the first character of a block key (`a[0]: 1` has the key "a[0]").
    for (let q = p; q < this.le; q++) {
      const ch = text.charCodeAt(q);
      if (ch === COLON && (q + 1 === this.le || text.charCodeAt(q + 1) === SPACE)) {
        const raw = text.slice(p, q).trimEnd();
        if (raw.length > MAX_KEY_LENGTH || typeof plainScalar(raw) !== 'string') decline();
        return { key: raw, after: q + 1 };
      }
      if (ch === HASH && text.charCodeAt(q - 1) === SPACE) decline();
    }
    return decline();
  }

  /** The value after a map key's `:` at `p` (on this line or the next ones); ends at the start of the line after it. */
  private mapValue(p: number, indent: number, items?: Position[]): unknown {
    p = this.skipSpaces(p);
    if (p === this.le || this.text.charCodeAt(p) === HASH) {
      this.advance();
      return this.nested(indent, true, items);
    }
    return this.inlineValue(p, indent, items);
  }

  /** A value starting at `p` on the current line, not a map entry; `indent`: its parent collection's. */
  private inlineValue(p: number, indent: number, items?: Position[]): unknown {
    const c = this.text.charCodeAt(p);
    if (c === PIPE || c === GREATER) return this.blockScalar(p, indent);
    if (c === LBRACKET || c === LBRACE) {
      const r = this.flowValue(p, items);
      this.endOfLine(r.end);
      return r.value;
    }
    if (c === DQUOTE || c === SQUOTE) {
      const r = this.quoted(p);
      this.endOfLine(r.end);
      return r.value;
    }
    const raw = this.text.slice(p, this.plainEnd(p)).trimEnd();
    // From the end of the text: a comment after it must be apart from it.
    this.endOfLine(p + raw.length);
    return plainScalar(raw);
  }

  /** Where a block plain scalar starting at `p` ends (a comment or the line end); declines at `: ` (a key). */
  private plainEnd(p: number): number {
    const { text } = this;
    const c = text.charCodeAt(p);
    if (NOT_PLAIN_START.has(c) || (c === DASH && (p + 1 === this.le || text.charCodeAt(p + 1) === SPACE))) decline();
    let q = p;
    for (; q < this.le; q++) {
      const ch = text.charCodeAt(q);
      if (ch === COLON && (q + 1 === this.le || text.charCodeAt(q + 1) === SPACE)) decline();
      if (ch === HASH && text.charCodeAt(q - 1) === SPACE) break;
    }
    return q;
  }

  /** A collection on the lines after a key or `-` with nothing after it, or null; `sameIndentSeq`: a list may sit at the key's column. */
  private nested(indent: number, sameIndentSeq: boolean, items?: Position[]): unknown {
    if (this.skipBlank() !== 'content') return null;
    const p = this.ls + this.sp;
    if (this.sp > indent || (sameIndentSeq && this.sp === indent && this.isSeqEntry(p))) {
      if (this.isSeqEntry(p)) return this.blockSeq(this.sp, items);
      return this.blockMap(this.sp, p);
    }
    return null;
  }

  /** A block list whose `-` sit at column `indent`, the first on the current line. */
  private blockSeq(indent: number, items?: Position[]): unknown[] {
    this.enter();
    const out: unknown[] = [];
    for (;;) {
      const p = this.skipSpaces(this.ls + indent + 1);
      if (p === this.le || this.text.charCodeAt(p) === HASH) {
        this.advance();
        const before = this.skipBlank() === 'content' && this.sp > indent ? this.at(this.ls + this.sp) : undefined;
        // An empty item's place is the yaml library's business: a List with one is left to it.
        if (items && !before) decline();
        if (before) items?.push(before);
        out.push(this.nested(indent, false));
      } else {
        items?.push(this.at(p));
        out.push(this.seqItem(p, indent));
      }
      if (this.skipBlank() !== 'content' || this.sp < indent) break;
      if (this.sp > indent) decline();
      if (!this.isSeqEntry(this.ls + indent)) break;
    }
    this.depth--;
    return out;
  }

  /** A list item on the line of its `-`: a map (`- key: value`, its keys at that column) or a value. */
  private seqItem(p: number, indent: number): unknown {
    const { text } = this;
    const c = text.charCodeAt(p);
    if (c === DASH && (p + 1 === this.le || text.charCodeAt(p + 1) === SPACE)) decline();
    if (c === DQUOTE || c === SQUOTE) {
      const r = this.quoted(p);
      const q = this.skipSpaces(r.end);
      if (text.charCodeAt(q) === COLON) return this.blockMap(p - this.ls, p);
      this.endOfLine(r.end);
      return r.value;
    }
    if (c !== PIPE && c !== GREATER && c !== LBRACKET && c !== LBRACE && !NOT_PLAIN_START.has(c) && this.hasKeyColon(p)) return this.blockMap(p - this.ls, p);
    return this.inlineValue(p, indent);
  }

  /** Whether the plain text at `p` holds `: ` or ends in `:` before any comment (a map entry). */
  private hasKeyColon(p: number): boolean {
    const { text } = this;
    for (let q = p; q < this.le; q++) {
      const ch = text.charCodeAt(q);
      if (ch === COLON && (q + 1 === this.le || text.charCodeAt(q + 1) === SPACE)) return true;
      if (ch === HASH && text.charCodeAt(q - 1) === SPACE) return false;
    }
    return false;
  }

  /** A quoted scalar that closes on its line: its value and the offset after the closing quote. */
  private quoted(p: number): { value: string; end: number } {
    const { text, le } = this;
    if (text.charCodeAt(p) === SQUOTE) {
      let value = '';
      for (let from = p + 1; ; ) {
        const q = text.indexOf("'", from);
        if (q < 0 || q >= le) return decline();
        value += text.slice(from, q);
        if (text.charCodeAt(q + 1) !== SQUOTE) return { value, end: q + 1 };
        value += "'";
        from = q + 2;
      }
    }
    let value = '';
    let from = p + 1;
    for (let q = from; q < le; q++) {
      const ch = text.charCodeAt(q);
      if (ch === DQUOTE) return { value: value + text.slice(from, q), end: q + 1 };
      if (ch !== BACKSLASH) continue;
      value += text.slice(from, q);
      const e = text[q + 1];
      if (q + 1 >= le) decline();
      const simple = ESCAPES.get(e);
      if (simple !== undefined) {
        value += simple;
        q++;
      } else if (e === 'x' || e === 'u' || e === 'U') {
        const length = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = text.slice(q + 2, q + 2 + length);
        if (hex.length !== length || q + 2 + length > le || !HEX_DIGITS.test(hex)) decline();
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) decline();
        value += String.fromCodePoint(code);
        q += 1 + length;
      } else decline();
      from = q + 1;
    }
    return decline();
  }

  /** `|` or `>` at `p`, with a chomping indicator or none, its lines indented deeper than `indent`. */
  private blockScalar(p: number, indent: number): string {
    const { text } = this;
    const folded = text.charCodeAt(p) === GREATER;
    let q = p + 1;
    const chomp = text[q] === '-' || text[q] === '+' ? text[q++] : '';
    this.endOfLine(q);
    // Each line: its text after the content's indentation, or undefined for a blank line (with its spaces).
    const lines: Array<{ text?: string; spaces: number }> = [];
    let contentIndent = -1;
    for (; !this.eof; this.advance()) {
      const s = this.skipSpaces(this.ls) - this.ls;
      if (this.ls + s === this.le) {
        // Spaces ending the file without a line break: what they add is the yaml library's business.
        if (this.le === text.length) decline();
        lines.push({ spaces: s });
        continue;
      }
      if (contentIndent < 0) {
        if (s <= indent) break;
        contentIndent = s;
      } else if (s < contentIndent) break;
      lines.push({ text: text.slice(this.ls + contentIndent, this.le), spaces: s });
    }
    if (contentIndent < 0) decline();
    const first = lines.findIndex((l) => l.text !== undefined);
    // Blank lines above the first line with more spaces than it: the yaml library reports those.
    if (lines.slice(0, first).some((l) => l.spaces > contentIndent)) decline();
    // A blank line with more spaces than the indentation keeps the rest; a folded block keeps to plain lines.
    const texts = lines.map((l) => l.text ?? ' '.repeat(Math.max(0, l.spaces - contentIndent)));
    if (folded && lines.some((l) => l.spaces > contentIndent)) decline();
    let last = texts.length - 1;
    while (texts[last] === '') last--;
    let body: string;
    if (!folded) body = texts.slice(0, last + 1).join('\n');
    else {
      body = '\n'.repeat(first);
      let blanks = -1;
      for (let i = first; i <= last; i++) {
        if (texts[i] === '') blanks++;
        else {
          body += blanks < 0 ? texts[i] : `${blanks === 0 ? ' ' : '\n'.repeat(blanks)}${texts[i]}`;
          blanks = 0;
        }
      }
    }
    if (chomp === '-') return body;
    return chomp === '+' ? `${body}\n${'\n'.repeat(texts.length - 1 - last)}` : `${body}\n`;
  }

  /** A flow value on the current line at `p`: its value and the offset after it; `items` collects a list's item starts. */
  private flowValue(p: number, items?: Position[]): { value: unknown; end: number } {
    const { text } = this;
    const c = text.charCodeAt(p);
    if (c === LBRACKET) return this.flowSeq(p, items);
    if (c === LBRACE) return this.flowMap(p);
    if (c === DQUOTE || c === SQUOTE) return this.quoted(p);
    if (NOT_PLAIN_START.has(c) || (c === DASH && (p + 1 === this.le || text.charCodeAt(p + 1) === SPACE))) decline();
    let q = p;
    for (; q < this.le; q++) {
      const ch = text.charCodeAt(q);
      if (FLOW_INDICATOR.has(ch)) break;
      if (ch === COLON) {
        const next = q + 1 === this.le ? SPACE : text.charCodeAt(q + 1);
        if (next === SPACE || FLOW_INDICATOR.has(next)) break;
      }
      if (ch === HASH && text.charCodeAt(q - 1) === SPACE) decline();
    }
    return { value: plainScalar(text.slice(p, q).trimEnd()), end: q };
  }

  private flowSeq(p: number, items?: Position[]): { value: unknown[]; end: number } {
    this.enter();
    const out: unknown[] = [];
    let q = this.skipSpaces(p + 1);
    for (;;) {
      if (q >= this.le) decline();
      if (this.text.charCodeAt(q) === RBRACKET) break;
      items?.push(this.at(q));
      const r = this.flowValue(q);
      out.push(r.value);
      q = this.skipSpaces(r.end);
      const ch = this.text.charCodeAt(q);
      if (ch === COMMA) q = this.skipSpaces(q + 1);
      else if (ch !== RBRACKET) decline();
    }
    this.depth--;
    return { value: out, end: q + 1 };
  }

  /** `{key: value, ...}`; `items`: where the items of its `items` list start (a document's root). */
  private flowMap(p: number, items?: Position[]): { value: Obj; end: number } {
    this.enter();
    const { text } = this;
    const out: Obj = {};
    let q = this.skipSpaces(p + 1);
    for (;;) {
      if (q >= this.le) decline();
      if (text.charCodeAt(q) === RBRACE) break;
      let key: string;
      const c = text.charCodeAt(q);
      if (c === DQUOTE || c === SQUOTE) {
        const k = this.quoted(q);
        key = k.value;
        q = this.skipSpaces(k.end);
        if (text.charCodeAt(q) !== COLON) decline();
        q++;
      } else {
        if (NOT_PLAIN_START.has(c) || c === DASH) decline();
        const start = q;
        for (; q < this.le && !(text.charCodeAt(q) === COLON && text.charCodeAt(q + 1) === SPACE); q++) {
          const ch = text.charCodeAt(q);
          if (FLOW_INDICATOR.has(ch) || ch === HASH) decline();
        }
        if (q >= this.le) decline();
        key = text.slice(start, q).trimEnd();
        if (typeof plainScalar(key) !== 'string') decline();
        q++;
      }
      if (key === '__proto__' || key === '<<' || Object.hasOwn(out, key)) decline();
      q = this.skipSpaces(q);
      const v = text.charCodeAt(q);
      if (q >= this.le || v === COMMA || v === RBRACE) decline();
      const r = this.flowValue(q, key === 'items' ? items : undefined);
      out[key] = r.value;
      q = this.skipSpaces(r.end);
      const ch = text.charCodeAt(q);
      if (ch === COMMA) q = this.skipSpaces(q + 1);
      else if (ch !== RBRACE) decline();
    }
    this.depth--;
    return { value: out, end: q + 1 };
  }
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The documents of a file read by the scanner, or undefined when the file is outside its subset. */
export function scanManifests(text: string): DocumentValue[] | undefined {
  if (UNSUPPORTED_CHARACTERS.test(text)) return undefined;
  try {
    return new Scanner(text).documents();
  } catch (e) {
    if (e === DECLINE || e instanceof RangeError) return undefined;
    throw e;
  }
}

