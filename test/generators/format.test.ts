// The generated code is formatted in worker threads with prettier's babel-ts parser
// (generators/format-pool.ts): the files are what prettier's typescript parser gives, and every
// reply reaches the file it belongs to. Files a generator writes in prettier's form itself
// (preformatted: routes, validator data, feature gates) are left as they are by prettier.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'prettier';
import { describe, expect, it } from 'vitest';
import { FormatError, formatPool, PRETTIER_OPTIONS } from '../../generators/format-pool.ts';
import { printLiteral, RawCode, UnsupportedLiteral, type Literal } from '../../generators/literal-printer.ts';
import { loadSpec } from '../../generators/model/load.ts';
import { validatorsGenerator } from '../../generators/validators/generator.ts';

const root = join(import.meta.dirname, '..', '..');
const out = join(root, 'out');
const prettierForm = (code: string): Promise<string> => format(code, { ...PRETTIER_OPTIONS });

describe('generated code formatting', () => {
  // One file of each generator that writes code; types/index.ts is the largest single file.
  it.each(['index.ts', 'routes/index.ts', 'routes/secret.ts', 'validators/secret.ts', 'validators/feature-gates.ts', 'types/index.ts'])(
    'out/%s is what prettier with the typescript parser prints',
    async (path) => {
      const committed = readFileSync(join(out, path), 'utf8');
      expect(await format(committed, { ...PRETTIER_OPTIONS, parser: 'typescript' })).toBe(committed);
    },
  );

  it('gives each file its own formatted text when many are in flight', async () => {
    const cases = Array.from({ length: 12 }, (_, i) => ({
      source: `export const  v${i} = {"n":${i},"s":"x${'y'.repeat(i * 9)}",  "list": [${Array.from({ length: i }, (_, j) => j).join(',')}]}`,
    }));
    const expected = await Promise.all(cases.map((c) => format(c.source, { ...PRETTIER_OPTIONS })));
    const pool = formatPool();
    expect(await Promise.all(cases.map((c) => pool.format(c.source)))).toEqual(expected);
  });

  it('rejects code prettier cannot parse, and formats the next file', async () => {
    const pool = formatPool();
    await expect(pool.format('export const = ;')).rejects.toBeInstanceOf(FormatError);
    expect(await pool.format("export const ok = \"yes\"")).toBe("export const ok = 'yes';\n");
  });

  it('leaves every file a generator wrote in its form as it is', async () => {
    const { model } = await loadSpec(root);
    const files = await validatorsGenerator.generate(model);
    const preformatted = files.filter((f) => f.preformatted);
    expect(preformatted.map((f) => f.path)).toEqual(expect.arrayContaining(['validators/feature-gates.ts', 'validators/secret.data.ts']));
    for (const f of preformatted) expect(await prettierForm(f.content), f.path).toBe(f.content);
  });
});

describe('the literal printer', () => {
  const declaration = 'export const value: unknown = ';
  const longWord = 'w'.repeat(100);
  const cases: Array<{ name: string; value: Literal }> = [
    { name: 'a short object stays on one line', value: { a: 1, b: 'two', c: [true, null] } },
    { name: 'an object too long for the line breaks', value: { first: longWord, second: 'x' } },
    { name: 'a long string after a long key moves to the next line', value: { row: { description: `${longWord} more` } } },
    { name: 'a long string after a short key stays', value: { row: { name: `${longWord} more` } } },
    { name: 'two objects of two entries always break, and so does their parent', value: { list: [{ a: 1, b: 2 }, { a: 3, b: 4 }] } },
    { name: 'one object in a list does not force a break', value: { list: [{ a: 1, b: 2 }] } },
    { name: 'a long list of strings puts each on its line', value: { items: Array.from({ length: 12 }, (_, i) => `item-number-${i}`) } },
    { name: 'quotes: single unless the text has more single quotes', value: { a: `it's "fine"`, b: "it's", c: `say "hi"`, d: 'back\\slash\nnew' } },
    { name: 'raw code is printed as it is', value: [new RawCode('handlers.get'), new RawCode('f(handlers)')] },
    { name: 'empty object and list', value: { o: {}, l: [] } },
  ];
  it.each(cases)('$name', async ({ value }) => {
    const printed = `${declaration}${printLiteral(value, 0, declaration.length, 1)};\n`;
    expect(await prettierForm(printed)).toBe(printed);
  });

  it.each([
    { name: 'a key that needs quotes', value: { 'needs-quotes': 1 } as Literal },
    { name: 'a long list of numbers (prettier fills it)', value: Array.from({ length: 40 }, (_, i) => i * 1000) as Literal },
  ])('refuses $name', ({ value }) => {
    expect(() => printLiteral(value, 0, declaration.length, 1)).toThrow(UnsupportedLiteral);
  });
});
