// Standard-library numeric conversions the engine lacks: `int(uint)` (cel-go errors when the value
// exceeds the int64 range, as for every other int conversion).

import type { CelRegistrar } from '../registrar.ts';
import { celError, MAX_INT, UnsignedInt } from '../values.ts';

function uintToInt(u: UnsignedInt): bigint {
  const v = u.valueOf();
  if (v > MAX_INT) throw celError('integer overflow');
  return v;
}

export function numericConversionsLibrary(r: CelRegistrar): void {
  r.fn('int(uint): int', uintToInt as never);
}
