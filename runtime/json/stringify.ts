// JSON text of API objects that may be nested 10,000 levels deep. V8's JSON.stringify checks each
// object against every object still open above it (its cycle check), so its cost grows with the
// square of the depth: ~25-60 ms for a 10,000-deep object, which a write pays twice (storage and
// answer). `stringifyLinear` gives the same text in time linear in the size, but is 2-3x slower than
// V8's on the wide objects every other write has; so the code that builds a deep part marks it
// (`markDeep`: the FieldsV1 of a deep object's managedFields, which mirror its structure), and
// `jsonText` takes the linear path only for an object whose managedFields list is marked.

import { isObject } from './is-object.ts';

/** Objects (FieldsV1 trees, managedFields lists) known to be nested deeper than DEEP_LEVELS. */
const deep = new WeakSet<object>();

/** From this many levels on, V8's quadratic cycle check costs more than the linear serializer. */
export const DEEP_LEVELS = 1000;

export function markDeep(o: object): void {
  deep.add(o);
}

export function isMarkedDeep(o: unknown): boolean {
  return typeof o === 'object' && o !== null && deep.has(o);
}

/** JSON.stringify(obj), through the linear serializer when obj's metadata.managedFields is marked deep. */
export function jsonText(obj: unknown): string {
  const metadata = isObject(obj) ? obj.metadata : undefined;
  if (isObject(metadata) && isMarkedDeep(metadata.managedFields)) return stringifyLinear(obj);
  return JSON.stringify(obj);
}

interface Frame {
  readonly container: object;
  /** An object's keys; undefined for an array. */
  readonly keys: string[] | undefined;
  next: number;
  first: boolean;
}

/** What JSON.stringify leaves out of an object and writes as null in an array. */
const isSkipped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * JSON.stringify(value)'s text (no replacer, no indent) for JSON values, with an explicit stack:
 * linear in the size whatever the depth. Strings and keys are quoted by JSON.stringify itself; an
 * object with toJSON (a Date) is handed to it whole.
 */
export function stringifyLinear(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  let v: unknown = value;
  for (;;) {
    if (v === null) out.push('null');
    else if (typeof v === 'object') {
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function') out.push(JSON.stringify(v));
      else if (Array.isArray(v)) {
        out.push('[');
        stack.push({ container: v, keys: undefined, next: 0, first: true });
      } else {
        out.push('{');
        stack.push({ container: v, keys: Object.keys(v), next: 0, first: true });
      }
    } else if (typeof v === 'string') out.push(JSON.stringify(v));
    else if (typeof v === 'number') out.push(Number.isFinite(v) ? String(v) : 'null');
    else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
    else if (typeof v === 'bigint') out.push(JSON.stringify(v)); // throws, as JSON.stringify does
    else out.push('null');

    // the next value: the next member of the innermost open container, closing those that are done
    let found = false;
    while (!found && stack.length > 0) {
      const f = stack[stack.length - 1];
      if (f.keys === undefined) {
        const items = f.container as unknown[];
        if (f.next < items.length) {
          const item = items[f.next++];
          if (!f.first) out.push(',');
          f.first = false;
          v = isSkipped(item) ? null : item;
          found = true;
          continue;
        }
        out.push(']');
      } else {
        const members = f.container as Record<string, unknown>;
        while (f.next < f.keys.length) {
          const k = f.keys[f.next++];
          const member = members[k];
          if (isSkipped(member)) continue;
          if (!f.first) out.push(',');
          f.first = false;
          out.push(JSON.stringify(k), ':');
          v = member;
          found = true;
          break;
        }
        if (found) continue;
        out.push('}');
      }
      stack.pop();
    }
    if (!found) return out.join('');
  }
}
