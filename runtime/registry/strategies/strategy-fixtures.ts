// Test support for the strategy tests: the fixtures of test/fixtures/objects/<kind>, each carrying
// the strategy's own errors as `strategyWant` (none when absent) beside the validator's `want`,
// and a strategy's verdict on one (an update when the fixture has `old`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Obj } from '../../api/object.ts';
import type { FieldError } from '../../schema/types.ts';
import type { Strategy } from '../strategy.ts';

export interface StrategyFixture {
  object: Obj;
  old?: Obj;
  strategyWant?: FieldError[];
}

/** The fixtures of one kind's folder, by file name, sorted. */
export function strategyFixtures(kindDir: string): (readonly [string, StrategyFixture])[] {
  const dir = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'objects', kindDir);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => [f, parse(readFileSync(join(dir, f), 'utf8')) as StrategyFixture] as const);
}

/** The strategy's errors for a fixture: validateUpdate against `old` when it has one, else validate. */
export function strategyVerdict(strategy: Strategy, f: StrategyFixture): FieldError[] {
  return f.old ? (strategy.validateUpdate?.(f.object, f.old) ?? []) : (strategy.validate?.(f.object) ?? []);
}
