import { describe, expect, it } from 'vitest';
import { hasWatchParam, parseGoBool, queryBool } from './query-bool.ts';

// [query string, value of `watch`] as upstream's Convert_Slice_string_To_(Pointer_)bool reads it
const boolCases: [string, boolean | undefined][] = [
  ['', undefined],
  ['limit=1', undefined],
  ['watch', true],
  ['watch=', true],
  ['watch=true', true],
  ['watch=True', true], // what the python client sends
  ['watch=TRUE', true],
  ['watch=1', true],
  ['watch=yes', true],
  ['watch=anything', true],
  ['watch=false', false],
  ['watch=False', false],
  ['watch=FALSE', false],
  ['watch=fAlSe', false],
  ['watch=fal%C5%BFe', false], // strings.EqualFold folds the long s to s
  ['watch=0', false],
  ['watch=00', true],
  ['watch=f', true],
  ['watch=no', true],
  ['watch=false&watch=true', false], // the first value counts
  ['watch=true&watch=false', true],
];

describe('boolean query parameters', () => {
  it.each(boolCases)('?%s reads watch as %s', (query, want) => {
    expect(queryBool(new URLSearchParams(query), 'watch')).toBe(want);
    expect(hasWatchParam(`/api/v1/configmaps?${query}`)).toBe(want === true);
  });

  // Go's strconv.ParseBool, which upstream uses for `pretty` only
  const parseBoolCases: [string, boolean | undefined][] = [
    ['1', true], ['t', true], ['T', true], ['TRUE', true], ['true', true], ['True', true],
    ['0', false], ['f', false], ['F', false], ['FALSE', false], ['false', false], ['False', false],
    ['', undefined], ['tRUE', undefined], ['yes', undefined], ['2', undefined],
  ];
  it.each(parseBoolCases)('strconv.ParseBool(%j) is %s', (v, want) => {
    expect(parseGoBool(v)).toBe(want);
  });
});
