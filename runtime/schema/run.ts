// Runs a generated root validator (runtime/schema/codegen.ts, or a module of out/validators) over
// one object: a fresh context per call, path arrays reused between calls, and input the walk cannot
// finish (a cyclic object, nesting beyond the stack) answered with a field error, never a throw.
import type { FieldError } from './types.ts';
import { ValidationContext } from './context.ts';

/** The root validator: the value, the old value (or undefined), the context, the depth (0). */
export type RootFn = (x: unknown, o: unknown, c: ValidationContext, d: number) => void;

/** The error for input nested beyond what the validator can walk (or cyclic, which JSON cannot be). */
export const TOO_DEEP: FieldError = {
  field: '',
  reason: 'FieldValueInvalid',
  message: 'Invalid value: the object is nested too deeply (or is cyclic) to be validated',
};

/** V8's stack overflow (a walk deeper than the stack). */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * `run(obj, old, update)`: every error of one validation; `tooDeepAt` names the field of the error
 * for input the walk cannot finish (too-deep.ts; the root without it).
 */
export function rootRunner(
  rootFn: RootFn,
  gates: Record<string, boolean>,
  tooDeepAt: (obj: unknown) => string = () => '',
): (obj: unknown, old: unknown, update: boolean) => FieldError[] {
  // A fresh context per call (young allocations are cheaper than reusing an old object, whose
  // stores of new arrays need write barriers) over path arrays the validator keeps; a reentrant
  // call gets arrays of its own.
  const segs: (string | number)[] = [];
  const kinds: number[] = [];
  let busy = false;
  const walk = (c: ValidationContext, obj: unknown, old: unknown): FieldError[] => {
    try {
      rootFn(obj, old, c, 0);
    } catch (e) {
      if (!isStackOverflow(e)) throw e;
      c.errors.push({ ...TOO_DEEP, field: tooDeepAt(obj) });
    }
    return c.errors;
  };
  return (obj, old, update) => {
    if (busy) return walk(new ValidationContext(update, gates), obj, old);
    busy = true;
    try {
      return walk(new ValidationContext(update, gates, segs, kinds), obj, old);
    } finally {
      busy = false;
    }
  };
}
