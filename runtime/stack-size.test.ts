import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { chooseStackSize, hasStackSizeFlag, parseStackLimit, serverStackArgs, withoutPreload, type StackChoice } from './stack-size.ts';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max stack size            SOFT                 unlimited            bytes
`;

describe('parseStackLimit', () => {
  const cases: { soft: string; want: number | undefined }[] = [
    { soft: '8388608', want: 8388608 },
    { soft: 'unlimited', want: Infinity },
    { soft: 'garbage', want: undefined },
  ];
  for (const c of cases) it(`soft limit ${c.soft}`, () => expect(parseStackLimit(LIMITS.replace('SOFT', c.soft))).toBe(c.want));
  it('no stack line', () => expect(parseStackLimit('Max cpu time  unlimited  unlimited  seconds\n')).toBeUndefined());
});

describe('chooseStackSize: half the OS stack, at most 3900 KB', () => {
  const cases: { limit: number | undefined; want: StackChoice['kind']; kb?: number; noted: boolean }[] = [
    { limit: 8 * 1024 * 1024, want: 'raise', kb: 3900, noted: false },
    { limit: Infinity, want: 'raise', kb: 3900, noted: false },
    { limit: 6 * 1024 * 1024, want: 'raise', kb: 3072, noted: false },
    { limit: 4 * 1024 * 1024, want: 'raise', kb: 2048, noted: true },
    { limit: 2 * 1024 * 1024, want: 'raise', kb: 1024, noted: true },
    { limit: 1900 * 1024, want: 'keep', noted: true },
    { limit: 1024 * 1024, want: 'keep', noted: true },
    { limit: undefined, want: 'keep', noted: true },
  ];
  for (const c of cases) {
    it(`limit ${c.limit}`, () => {
      const got = chooseStackSize(c.limit);
      expect({ kind: got.kind, kb: got.kind === 'raise' ? got.kb : undefined, noted: got.note !== undefined }).toEqual({ kind: c.want, kb: c.kb, noted: c.noted });
    });
  }
  it('serverStackArgs gives the flag only when raising', () => {
    expect(serverStackArgs(8 * 1024 * 1024)).toEqual(['--stack-size=3900']);
    expect(serverStackArgs(1024 * 1024)).toEqual([]);
  });
});

describe('flags', () => {
  const flagCases: { argv: string[]; want: boolean }[] = [
    { argv: ['--import', 'tsx'], want: false },
    { argv: ['--stack-size=3900'], want: true },
    { argv: ['--stack_size=3900'], want: true },
    { argv: ['--stack-size', '3900'], want: true },
    { argv: ['--stack-sizes=1'], want: false },
  ];
  for (const c of flagCases) it(`hasStackSizeFlag ${c.argv.join(' ')}`, () => expect(hasStackSizeFlag(c.argv)).toBe(c.want));

  const preloadCases: { argv: string[]; want: string[] }[] = [
    { argv: ['--import', 'tsx', '--import', './runtime/stack-reexec.ts'], want: ['--import', 'tsx'] },
    { argv: ['--import=./runtime/stack-reexec.ts', '--import', 'tsx'], want: ['--import', 'tsx'] },
    { argv: ['--import', 'file:///repo/runtime/stack-reexec.ts', '--inspect'], want: ['--inspect'] },
    { argv: ['--import', './runtime/other.ts'], want: ['--import', './runtime/other.ts'] },
    { argv: ['--import'], want: ['--import'] },
  ];
  for (const c of preloadCases) it(`withoutPreload ${c.argv.join(' ')}`, () => expect(withoutPreload(c.argv, '/repo/runtime/stack-reexec.ts', '/repo')).toEqual(c.want));
});

describe('a 10,000-deep value in a process with the chosen stack', () => {
  it('survives JSON.stringify, JSON.parse and a recursive clone (and fails with the default stack)', () => {
    const script = `
      let o = {}; const root = o;
      for (let i = 0; i < 5000; i++) { o.a = [{}]; o = o.a[0]; } // 10,000 levels: an object and an array each step
      const clone = (v) => v === null || typeof v !== 'object' ? v : Array.isArray(v) ? v.map(clone) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)]));
      try { const s = JSON.stringify(root); const back = clone(JSON.parse(s)); console.log(JSON.stringify(back) === s ? 'ok' : 'differs'); }
      catch (e) { console.log(e.constructor.name); }`;
    const run = (flags: string[]): string => execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }).trim();
    expect({ raised: run(serverStackArgs()), default: run([]) }).toEqual({ raised: 'ok', default: 'RangeError' });
  });
});
