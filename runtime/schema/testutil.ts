// Test helpers: fixture loading (YAML beside the tests' expectations) and a tiny fake CEL engine.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { CelRuleEngine, ValidationRule } from './types.ts';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/schema/', import.meta.url));

/** Expands `$REPEAT(c,n)` strings (large values without large fixture files). */
function expand(v: unknown): unknown {
  if (typeof v === 'string') {
    const m = /^\$REPEAT\((.),(\d+)\)$/.exec(v);
    return m ? m[1].repeat(Number(m[2])) : v;
  }
  if (Array.isArray(v)) return v.map(expand);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]));
  return v;
}

export function loadFixture<T>(name: string): T {
  return expand(parse(readFileSync(FIXTURES + name, 'utf8'))) as T;
}

/** A fake CEL engine: each rule text maps to a JS predicate over (self, oldSelf). */
export function fakeCel(rules: Record<string, (self: unknown, oldSelf: unknown) => boolean>): CelRuleEngine {
  return {
    compileRule(rule: ValidationRule) {
      const fn = rules[rule.rule];
      if (!fn) throw new Error(`undeclared reference to '${rule.rule}'`);
      const isTransitionRule = rule.rule.includes('oldSelf');
      return {
        isTransitionRule,
        evaluate(self, oldSelf) {
          if (fn(self, oldSelf)) return { ok: true };
          return { ok: false, message: rule.message ?? '', reason: (rule.reason as 'FieldValueInvalid') ?? 'FieldValueInvalid' };
        },
      };
    },
  };
}
