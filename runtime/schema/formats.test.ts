import { describe, expect, it } from 'vitest';
import { numberFormat, stringFormat, STRING_FORMATS } from './formats.ts';
import { loadFixture } from './testutil.ts';

interface FormatCase { number?: boolean; accept: (string | number)[]; reject: (string | number)[] }
const table = loadFixture<Record<string, FormatCase>>('formats.yaml');

describe('formats (test/fixtures/schema/formats.yaml)', () => {
  it('covers the 24 formats of document 2 section 2.8', () => {
    const doc2 = ['bsonobjectid', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4', 'uuid5', 'isbn',
      'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'password', 'date', 'duration', 'datetime'];
    expect(doc2.length).toBe(24);
    for (const f of doc2) {
      expect(STRING_FORMATS[f], f).toBeTypeOf('function');
      expect(table[f], `fixture for ${f}`).toBeDefined();
    }
  });
  for (const [name, c] of Object.entries(table)) {
    describe(name, () => {
      for (const v of c.accept) {
        it(`accepts ${JSON.stringify(v)}`, () => {
          const ok = c.number ? numberFormat(name)!(v as number) : stringFormat(name)!(String(v));
          expect(ok).toBe(true);
        });
      }
      for (const v of c.reject) {
        it(`rejects ${JSON.stringify(v)}`, () => {
          const ok = c.number ? numberFormat(name)!(v as number) : stringFormat(name)!(String(v));
          expect(ok).toBe(false);
        });
      }
    });
  }
  it('ignores unknown formats', () => {
    expect(stringFormat('no-such-format')).toBeUndefined();
  });
});
