// The fast path of manifest reading (runtime/validate/fast-yaml.ts) against the full parser: on every
// YAML and JSON file of the repository, and on a table of cases, it gives the same documents, or
// declines (undefined) so that the full parser reads the file. It never gives different data.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifests, type DocumentValue } from '../../runtime/validate/documents.ts';
import { fastManifests } from '../../runtime/validate/fast-yaml.ts';

const ROOT = join(import.meta.dirname, '..', '..');

const comparable = (docs: DocumentValue[]): unknown[] =>
  docs.map((d) => ({ index: d.index, value: d.value, position: d.position, ...(d.itemPositions ? { itemPositions: d.itemPositions } : {}) }));

/** undefined when the fast path declines; otherwise both readings, which must be equal. */
function both(text: string): { fast: unknown[]; full: unknown[] } | undefined {
  const fast = fastManifests(text);
  if (!fast) return undefined;
  const full = parseManifests(text).documents;
  // A file the full parser finds a problem in is never read by the fast path.
  expect(full.filter((d) => d.syntaxError || d.duplicates.length)).toEqual([]);
  return { fast: comparable(fast), full: comparable(full) };
}

const cases: Array<{ name: string; text: string; fast: boolean }> = [
  { name: 'block maps, lists, flow maps and lists', text: 'a: 1\nb: [x, "y", {k: v}]\nc:\n  - d\n  - e: f\n', fast: true },
  { name: 'core schema scalars', text: 'n: ~\nn2: null\nn3:\nt: true\nf: False\ni: 42\nneg: -7\noct: 0o17\nhex: 0x1F\nflt: 1.5\nexp: 1e3\ninf: .inf\nninf: -.Inf\nlead: 010\nver: 1.2.3\nyes: yes\nquoted: "42"\nsingle: \'true\'\n', fast: true },
  { name: 'block scalars with chomping and multi-line plain scalars', text: 'a: |\n  one\n  two\nb: >-\n  folded\n  text\nc: plain\n  continued\nd: |+\n  keep\n\n', fast: true },
  { name: 'comments, document markers and empty documents', text: '# head\n---\na: 1 # trailing\n...\n---\n---\nb: [1, 2]\n', fast: true },
  { name: 'a List with item positions', text: 'kind: List\nitems:\n  - {kind: A}\n  - kind: B\n', fast: true },
  { name: 'JSON', text: '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1", "b": [true, null, 2.5]}}', fast: true },
  { name: 'escapes in double quotes', text: 'a: "tab\\tnew\\nline \\u00e9"\n', fast: true },
  { name: 'anchors and aliases', text: 'a: &x {k: v}\nb: *x\n', fast: false },
  { name: 'a merge key', text: 'base: &b {k: v}\nm:\n  <<: *b\n', fast: false },
  { name: 'tags', text: 'a: !!str 1\n', fast: false },
  { name: 'duplicate keys', text: 'a: 1\na: 2\n', fast: false },
  { name: 'a non-string key', text: '1: one\n', fast: false },
  { name: 'a flow list over several lines', text: 'a: [1,\n  2]\n', fast: false },
  { name: 'an unclosed flow list', text: 'a: [1, 2\nb: 3\n', fast: false },
  { name: 'a directive', text: '%YAML 1.2\n---\na: 1\n', fast: false },
  { name: 'a tab before a value', text: 'a:\t1\n', fast: true },
  { name: 'bad indentation', text: 'a:\n  b: 1\n c: 2\n', fast: false },
];

describe('the fast path of manifest reading', () => {
  it.each(cases)('$name: fast path $fast, and then the same documents', ({ text, fast }) => {
    const r = both(text);
    expect(r !== undefined).toBe(fast);
    if (r) expect(r.fast).toEqual(r.full);
  });

  it('every YAML and JSON file of the repository reads the same both ways', () => {
    const files = execSync("git ls-files '*.yaml' '*.yml' '*.json'", { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    let fast = 0;
    for (const f of files) {
      const r = both(readFileSync(join(ROOT, f), 'utf8'));
      if (!r) continue;
      fast++;
      expect(r.fast, f).toEqual(r.full);
    }
    // Most files take the fast path (the rest use anchors, tags or other features it leaves to the full parser).
    expect(fast).toBeGreaterThan(files.length / 2);
  });
});
