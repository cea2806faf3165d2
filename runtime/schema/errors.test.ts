// Bad values in messages: shown as upstream renders them up to MAX_SHOWN_VALUE_CHARS, omitted beyond
// it the way upstream's ErrorBody prints an omitted value (the reason's words alone).
import { describe, expect, it } from 'vitest';
import { fieldErr, MAX_SHOWN_VALUE_CHARS, valuePart } from './errors.ts';
import { H } from './codegen-runtime.ts';
import { ValidationContext } from './context.ts';

const atBound = 'x'.repeat(MAX_SHOWN_VALUE_CHARS - 2); // quoted: exactly the bound
const overBound = 'x'.repeat(MAX_SHOWN_VALUE_CHARS - 1);
const tenMB = 'x'.repeat(10 * 1024 * 1024);
const bigObject = { list: Array.from({ length: 5000 }, (_, i) => ({ name: `item-${i}` })) };
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;

describe('valuePart', () => {
  const cases: { name: string; value: unknown; want: string }[] = [
    { name: 'a short string, Go-quoted', value: 'fast', want: ': "fast"' },
    { name: 'a string whose quoted form is the bound', value: atBound, want: `: "${atBound}"` },
    { name: 'a string one character over', value: overBound, want: '' },
    { name: 'a 10 MB string', value: tenMB, want: '' },
    { name: 'an object whose JSON is over the bound', value: bigObject, want: '' },
    { name: 'a number', value: 5, want: ': 5' },
    { name: 'absent (a nil interface)', value: undefined, want: ': "null"' },
    { name: 'a cyclic object (not JSON): its String()', value: cyclic, want: ': [object Object]' },
  ];
  for (const c of cases) it(c.name, () => expect(valuePart(c.value)).toBe(c.want));
});

describe('messages of every reason that shows a value', () => {
  const cases: { name: string; build: (v: unknown) => { message: string }; short: string; long: string }[] = [
    { name: 'invalid', build: (v) => fieldErr.invalid('metadata.name', v, 'must be no more than 253 characters'), short: 'Invalid value: "a": must be no more than 253 characters', long: 'Invalid value: must be no more than 253 characters' },
    { name: 'typeInvalid', build: (v) => fieldErr.typeInvalid('spec.x', v, 'spec.x in body must be of type date-time'), short: 'Invalid value: "a": spec.x in body must be of type date-time', long: 'Invalid value: spec.x in body must be of type date-time' },
    { name: 'notSupported', build: (v) => fieldErr.notSupported('reclaimPolicy', v, ['Delete', 'Retain']), short: 'Unsupported value: "a": supported values: "Delete", "Retain"', long: 'Unsupported value: supported values: "Delete", "Retain"' },
    { name: 'duplicate', build: (v) => fieldErr.duplicate('spec.items[1]', v), short: 'Duplicate value: "a"', long: 'Duplicate value' },
    { name: 'notFound', build: (v) => fieldErr.notFound('spec.ref', v), short: 'Not found: "a"', long: 'Not found' },
    { name: 'ofReason (CEL, declarative rules)', build: (v) => fieldErr.ofReason('spec.x', 'FieldValueNotSupported', v, 'must be one of a, b'), short: 'Unsupported value: "a": must be one of a, b', long: 'Unsupported value: must be one of a, b' },
  ];
  for (const c of cases) {
    it(`${c.name}: shows a short value, omits a 10 MB one`, () => {
      expect(c.build('a').message).toBe(c.short);
      expect(c.build(tenMB).message).toBe(c.long);
    });
  }

  it('the generated validators\' helpers: an enum and a format miss with a 10 MB value', () => {
    const ctx = new ValidationContext(false, {});
    H.enumErr(ctx, 'reclaimPolicy', tenMB, ': supported values: "Delete", "Retain"');
    H.strFormat(ctx, 'spec.when', tenMB, 'date-time');
    H.strFormat(ctx, 'spec.when', 'soon', 'date-time');
    expect(ctx.errors.map((e) => e.message)).toEqual([
      'Unsupported value: supported values: "Delete", "Retain"',
      'Invalid value: spec.when in body must be of type date-time',
      'Invalid value: "soon": spec.when in body must be of type date-time: "soon"',
    ]);
  });
});
