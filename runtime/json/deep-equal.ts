// Structural equality of JSON values, the one the registry and the patch code share.

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Deep equality of JSON values as they would serialize: object key order is ignored, a key whose
 * value is undefined counts as absent, arrays equal item by item, scalars by `===` (so NaN is unequal
 * to itself, and null differs from absent). Only own enumerable keys are read, `__proto__` included.
 * Recurses once per nesting level, with no closures, so deep values need one frame per level.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  // Few locals and indexed loops: the frame size sets how deep a value can be compared.
  const keys = Object.keys(a);
  let defined = 0;
  for (let i = 0; i < keys.length; i++) {
    const x = (a as Record<string, unknown>)[keys[i]];
    if (x === undefined) continue;
    defined++;
    if (!hasOwn.call(b, keys[i]) || !jsonEqual(x, (b as Record<string, unknown>)[keys[i]])) return false;
  }
  return definedCount(b as Record<string, unknown>, defined) === defined;
}

/** How many keys of o have a defined value; `expected` when o has no more keys than that (the common case). */
function definedCount(o: Record<string, unknown>, expected: number): number {
  const keys = Object.keys(o);
  if (keys.length === expected) return expected;
  let n = 0;
  for (let i = 0; i < keys.length; i++) if (o[keys[i]] !== undefined) n++;
  return n;
}
