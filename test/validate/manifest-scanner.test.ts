// The scanner (runtime/validate/manifest-scanner.ts) against the yaml library's full parse: on a
// table of cases, every YAML and JSON file of the repository, generated documents and edited
// fixtures, it gives the same documents (data, positions, List item positions) or declines. It never
// accepts a file the full parser finds a problem in. Findings in a document it read are placed by
// parsing that document alone: the same lines and columns as the whole file's parse.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Node } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseDocumentAlone, parseManifests, type DocumentValue } from '../../runtime/validate/documents.ts';
import { scanManifests } from '../../runtime/validate/manifest-scanner.ts';
import { nodeAt, positionOf, type PathSegment } from '../../runtime/validate/positions.ts';

const ROOT = join(import.meta.dirname, '..', '..');

const comparable = (docs: DocumentValue[]): unknown[] =>
  docs.map((d) => ({ index: d.index, value: d.value, position: d.position, ...(d.itemPositions ? { itemPositions: d.itemPositions } : {}) }));

/** undefined when the scanner declines; otherwise both readings (the full one without problems). */
function both(text: string): { fast: unknown[]; full: unknown[] } | undefined {
  const fast = scanManifests(text);
  if (!fast) return undefined;
  const full = parseManifests(text).documents;
  expect(full.filter((d) => d.syntaxError || d.duplicates.length).map((d) => d.syntaxError?.message ?? 'duplicate key'), text).toEqual([]);
  return { fast: comparable(fast), full: comparable(full) };
}

const cases: Array<{ name: string; text: string; scanned: boolean }> = [
  { name: 'block maps and lists, a list at its key\'s column', text: 'a: 1\nb:\n  - x\n  - y: z\n    w: v\nc:\n- d\ne: f\n', scanned: true },
  { name: 'core schema scalars', text: 'n: ~\nn2: null\nn3:\nt: true\nf: False\ni: 42\nneg: -7\noct: 0o17\nhex: 0x1F\nflt: 1.5\nexp: 1e3\ninf: .inf\nninf: -.Inf\nnan: .NaN\nlead: 010\nver: 1.2.3\nyes: yes\nu: 1_000\nq: "42"\ns: \'true\'\n', scanned: true },
  { name: 'quotes and escapes on one line', text: 'a: "tab\\tnew\\nline \\u00e9 \\x41 \\U0001F600 \\/"\nb: \'it\'\'s\'\n"c d": 1\n\'e\': 2\n', scanned: true },
  { name: 'literal and folded block scalars, chomping', text: 'a: |\n  one\n\n    two\n  three\nb: >-\n  folded\n  text\n\n  para\nc: |+\n  keep\n\nd: |\n  x\n     \ne: x\n', scanned: true },
  { name: 'flow collections on one line', text: 'a: [1, "two", {k: v, "j":[x]}, []]\nb: {}\nc: [a, b, ]\nd: {x: http://y, z: a:b}\n', scanned: true },
  { name: 'comments, markers and empty documents', text: '# head\n---\na: 1 # trailing\n  # indented comment\nb: 2\n--- # c\n---\n\nc: [1, 2]\n---\n', scanned: true },
  { name: 'a List with item positions', text: 'kind: List\nitems:\n  - kind: A\n    x: 1\n  -  {kind: B}\n  -\n    kind: C\n  - "q"\n', scanned: true },
  { name: 'a List as one flow map', text: '{"kind": "List", "items": [{"kind": "A"}, {"kind": "B"}]}\n', scanned: true },
  { name: 'keys the full parser reads as strings', text: 'a[0]: 1\na :b: 2\nx.y/z-w_v: 3\nconstructor: 4\n', scanned: true },
  { name: 'a root list and an indented root map', text: '- a\n- b: c\n---\n  k: v\n  l: w\n', scanned: true },
  { name: 'a multi-line plain scalar', text: 'a: plain\n  continued\n', scanned: false },
  { name: 'a multi-line quoted scalar', text: 'a: "one\n  two"\n', scanned: false },
  { name: 'a multi-line flow list', text: 'a: [1,\n  2]\n', scanned: false },
  { name: 'anchors and aliases', text: 'a: &x {k: v}\nb: *x\n', scanned: false },
  { name: 'tags', text: 'a: !!str 1\n', scanned: false },
  { name: 'a duplicate key', text: 'a: 1\na: 2\n', scanned: false },
  { name: 'a duplicate key written two ways', text: 'a: 1\n"a": 2\n', scanned: false },
  { name: 'a non-string key', text: '1: one\n', scanned: false },
  { name: 'a merge key', text: 'm:\n  <<: {k: v}\n', scanned: false },
  { name: '__proto__ as a key', text: '__proto__: {polluted: true}\n', scanned: false },
  { name: 'a tab', text: 'a:\t1\n', scanned: false },
  { name: 'CR LF line ends', text: 'a: 1\r\nb: 2\r\n', scanned: false },
  { name: 'a document end marker', text: 'a: 1\n...\n', scanned: false },
  { name: 'a directive', text: '%YAML 1.2\n---\na: 1\n', scanned: false },
  { name: 'bad indentation', text: 'a:\n  b: 1\n c: 2\n', scanned: false },
  { name: 'a nested map on the line of its key', text: 'a: b: c\n', scanned: false },
  { name: 'a block scalar with an indentation indicator', text: 'a: |2\n   x\n', scanned: false },
  { name: 'an empty block scalar', text: 'a: |\nb: 1\n', scanned: false },
  { name: 'more-indented blank lines above a block scalar', text: 'a: |\n      \n  x\n', scanned: false },
  { name: 'an unknown escape', text: 'a: "\\q"\n', scanned: false },
  { name: 'a comment without a space before it', text: 'a: "x"#c\n', scanned: false },
  { name: 'an explicit key', text: '? a\n: b\n', scanned: false },
  { name: 'a list item on a key\'s line', text: 'a: - b\n', scanned: false },
  { name: 'a List with an empty item', text: 'kind: List\nitems:\n  -\n  - kind: A\n', scanned: false },
  { name: 'nesting deeper than the scanner goes', text: `${Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} v\n`, scanned: false },
];

/** Deterministic pseudo-random numbers (mulberry32), so that a failure can be replayed. */
function random(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Small documents of lines picked at random: keys, list entries, values of every kind, indentations, markers. */
function generated(count: number, seed: number): string[] {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)];
  const keys = ['a', 'b', 'items', 'kind', '"q k"', "'s'", 'a b', 'x.y/z', 'k-1', 'a[0]'];
  const values = ['1', 'x', '"s"', "'t''u'", '[1, b]', '{a: 1}', '{}', '[]', '~', '', '-1', '0x1F', '1.5', 'true', 'a#b', 'b # c', '"e\\u00e9\\n"', 'http://x',
    '[a, [b, c], {d: e}]', '{"a":1, b: [x]}', '|', '>', '|-', '|+', '>-', 'a b', '"\\q"', 'a:b', '{a: 1, a: 2}', '[a, ]', '&a x', '*a', '!t x', 'x  '];
  const starts = ['', '', '- ', '- - ', '-', '? '];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const lines: string[] = [];
    for (let l = 1 + rnd(7); l > 0; l--) {
      const indent = ' '.repeat(pick([0, 0, 2, 2, 4, 1, 3, 6]));
      const kind = rnd(8);
      if (kind === 0) lines.push(pick(['---', '--- # x', '# c', '...']));
      else if (kind === 1) lines.push(indent);
      else if (kind === 2) lines.push(indent + pick(starts) + pick(values));
      else lines.push(`${indent}${pick(starts)}${pick(keys)}:${rnd(2) ? ` ${pick(values)}` : ''}`);
    }
    out.push(lines.join('\n') + (rnd(2) ? '\n' : ''));
  }
  return out;
}

/** Files of the repository with 1 to 3 random edits each (characters in, out, indentation changed). */
function edited(files: readonly string[], count: number, seed: number): string[] {
  const rnd = random(seed);
  const snippets = [' ', '  ', ':', ': ', '- ', '#', ' #', '"', "'", '|', '>', '|-', '[', ']', '{', '}', ',', '\n', '\n  ', '---\n', '&a ', '*a', '? ', '\\', "''", '~', '<<', '   \n', '\n- '];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let t = files[rnd(files.length)];
    for (let e = 1 + rnd(3); e > 0; e--) {
      const at = rnd(t.length + 1);
      const lineStart = t.lastIndexOf('\n', at - 1) + 1;
      const edit = rnd(3);
      if (edit === 0) t = t.slice(0, at) + snippets[rnd(snippets.length)] + t.slice(at);
      else if (edit === 1) t = t.slice(0, at) + t.slice(at + 1 + rnd(3));
      else t = t.slice(0, lineStart) + ' '.repeat(rnd(3)) + t.slice(lineStart).replace(/^ {0,2}/, '');
    }
    out.push(t);
  }
  return out;
}

const repoFiles = execSync("git ls-files '*.yaml' '*.yml' '*.json'", { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const repoTexts = new Map(repoFiles.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));

describe('the manifest scanner', () => {
  it.each(cases)('$name: scanned $scanned, and then the same documents', ({ text, scanned }) => {
    const r = both(text);
    expect(r !== undefined).toBe(scanned);
    if (r) expect(r.fast).toEqual(r.full);
  });

  it('every YAML and JSON file of the repository reads the same both ways; most are scanned', () => {
    let scanned = 0;
    for (const [f, text] of repoTexts) {
      const r = both(text);
      if (!r) continue;
      scanned++;
      expect(r.fast, f).toEqual(r.full);
    }
    // The rest are JSON over several lines (for the tree reader) or use anchors and other features.
    expect(scanned).toBeGreaterThan(repoTexts.size * 0.7);
  });

  it('generated documents read the same both ways whenever scanned', () => {
    let scanned = 0;
    for (const text of generated(20_000, 7)) {
      const r = both(text);
      if (!r) continue;
      scanned++;
      expect(r.fast, JSON.stringify(text)).toEqual(r.full);
    }
    expect(scanned).toBeGreaterThan(2_000);
  });

  it('edited files of the repository read the same both ways whenever scanned', () => {
    const yaml = [...repoTexts].filter(([f, t]) => /\.ya?ml$/.test(f) && t.length < 20_000 && scanManifests(t)).map(([, t]) => t);
    let scanned = 0;
    for (const text of edited(yaml, 2_000, 11)) {
      const r = both(text);
      if (!r) continue;
      scanned++;
      expect(r.fast, JSON.stringify(text)).toEqual(r.full);
    }
    expect(scanned).toBeGreaterThan(200);
  });

  it('a document parsed alone places every field where the whole file places it', () => {
    const paths = (v: unknown, base: PathSegment[] = []): PathSegment[][] => {
      if (Array.isArray(v)) return [base, ...v.flatMap((x, i) => paths(x, [...base, i]))];
      if (typeof v === 'object' && v !== null) return [base, ...Object.entries(v).flatMap(([k, x]) => paths(x, [...base, k]))];
      return [base];
    };
    let checked = 0;
    // Files of the repository two by two, as documents of one file (and the files with several documents as they are).
    const yaml = [...repoTexts].filter(([f]) => /\.ya?ml$/.test(f));
    const files = yaml.map(([f, text], i) => [f, i % 2 ? text : `${text}${text.endsWith('\n') ? '' : '\n'}---\n${yaml[(i + 1) % yaml.length][1]}`] as const);
    for (const [f, text] of files) {
      const docs = scanManifests(text);
      if (!docs) continue;
      const full = parseManifests(text);
      for (const d of docs) {
        if (!d.span || d.value === null) continue;
        const alone = parseDocumentAlone(text, d.span);
        const whole = full.documents[d.index];
        for (const path of paths(d.value)) {
          for (const key of [false, true]) {
            const a = positionOf(nodeAt(alone.doc, [], path, key) as Node | undefined, alone.lines, alone.start);
            const b = positionOf(nodeAt(whole.doc, [], path, key) as Node | undefined, full.lines, whole.start);
            expect(a, `${f} document ${d.index} ${path.join('.')}`).toEqual(b);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });
});
