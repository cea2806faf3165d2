// Boolean query parameters (watch, allowWatchBookmarks, sendInitialEvents, force, orphanDependents),
// read as upstream's parameter codec does (apimachinery runtime Convert_Slice_string_To_bool and
// Convert_Slice_string_To_Pointer_bool): the first value is false only when it is `0` or `false` in
// any case, and anything else, the empty value of a bare `?watch` included, is true. `pretty` is the
// exception: upstream reads it with strconv.ParseBool (see `wantsPretty` in respond.ts).

/** undefined when the parameter is absent (its presence matters to validation), else its value. */
export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  // strings.EqualFold: the long s (U+017F) folds to s as well
  return v !== '0' && v.toLowerCase().replace(/\u017f/g, 's') !== 'false';
}

/** Go's strconv.ParseBool: undefined where Go returns an error. */
export function parseGoBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** Whether a request target asks for a watch through `?watch` (as a list's `watch` parameter reads). */
export function hasWatchParam(target: string): boolean {
  const q = target.indexOf('?');
  return q >= 0 && queryBool(new URLSearchParams(target.slice(q + 1)), 'watch') === true;
}
