// One iterative walk over a decoded value (explicit stack, no recursion): object members counted,
// the first non-finite number found, depth measured. For YAML, aliases make the value a graph whose
// expansion can be huge, so the walk also stops after a node budget.

export interface ValueFacts {
  /** Own keys of every object, summed (compared with the text's member count to spot duplicates). */
  members: number;
  /** The first number that is ±Infinity or NaN, if any. */
  nonFinite: number | undefined;
  /** Deepest nesting of objects and arrays (a scalar at the top is depth 0). */
  depth: number;
  /** True when the walk stopped at `budget` nodes. */
  overBudget: boolean;
}

export function walkValue(value: unknown, budget = Number.POSITIVE_INFINITY, stopDepth = Number.POSITIVE_INFINITY): ValueFacts {
  const facts: ValueFacts = { members: 0, nonFinite: undefined, depth: 0, overBudget: false };
  const values: unknown[] = [value];
  const depths: number[] = [0];
  let visited = 0;
  while (values.length) {
    const v = values.pop();
    const d = depths.pop() as number;
    if (++visited > budget) {
      facts.overBudget = true;
      return facts;
    }
    if (typeof v === 'number') {
      if (facts.nonFinite === undefined && !Number.isFinite(v)) facts.nonFinite = v;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const level = d + 1;
    if (level > facts.depth) {
      facts.depth = level;
      if (level > stopDepth) return facts;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        values.push(v[i]);
        depths.push(level);
      }
    } else {
      const keys = Object.keys(v);
      facts.members += keys.length;
      for (const k of keys) {
        values.push((v as Record<string, unknown>)[k]);
        depths.push(level);
      }
    }
  }
  return facts;
}

/**
 * The JSON fast path's walk (a tree from JSON.parse, so no budget or depth): members counted and
 * the first non-finite number found, pushing only containers on the stack.
 */
export function jsonValueFacts(value: unknown): { members: number; nonFinite: number | undefined } {
  let members = 0;
  let nonFinite: number | undefined;
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number' && !Number.isFinite(value)) nonFinite = value;
    return { members, nonFinite };
  }
  const stack: object[] = [value];
  while (stack.length) {
    const v = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (typeof x === 'object') {
          if (x !== null) stack.push(x);
        } else if (typeof x === 'number' && nonFinite === undefined && !Number.isFinite(x)) nonFinite = x;
      }
    } else {
      for (const k in v) {
        members++;
        const x = v[k];
        if (typeof x === 'object') {
          if (x !== null) stack.push(x);
        } else if (typeof x === 'number' && nonFinite === undefined && !Number.isFinite(x)) nonFinite = x;
      }
    }
  }
  return { members, nonFinite };
}
