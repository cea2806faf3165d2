// Kubernetes semver library: semver, isSemver, major, minor, patch, isGreaterThan, isLessThan, compareTo.

import type { CelRegistrar } from '../registrar.ts';
import { celError } from '../values.ts';

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export class CelSemver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string[],
    readonly raw: string,
  ) {}
  compareTo(o: CelSemver): number {
    for (const k of ['major', 'minor', 'patch'] as const) if (this[k] !== o[k]) return this[k] < o[k] ? -1 : 1;
    if (this.pre.length === 0 || o.pre.length === 0) return o.pre.length - this.pre.length === 0 ? 0 : this.pre.length === 0 ? 1 : -1;
    for (let i = 0; i < Math.min(this.pre.length, o.pre.length); i++) {
      const a = this.pre[i];
      const b = o.pre[i];
      if (a === b) continue;
      const an = /^\d+$/.test(a);
      const bn = /^\d+$/.test(b);
      if (an && bn) return BigInt(a) < BigInt(b) ? -1 : 1;
      if (an !== bn) return an ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return this.pre.length === o.pre.length ? 0 : this.pre.length < o.pre.length ? -1 : 1;
  }
  celEquals(o: unknown): boolean {
    return o instanceof CelSemver && this.compareTo(o) === 0;
  }
}

/** Parses semver; with normalize, a leading v and missing minor/patch are accepted (upstream option). */
export function parseSemver(s: string, normalize = false): CelSemver | undefined {
  let str = s;
  if (normalize) {
    if (str.startsWith('v')) str = str.slice(1);
    const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(str);
    if (m) str = `${BigInt(m[1])}.${BigInt(m[2] ?? '0')}.${BigInt(m[3] ?? '0')}${m[4]}`;
  }
  const m = SEMVER.exec(str);
  if (!m) return undefined;
  return new CelSemver(BigInt(m[1]), BigInt(m[2]), BigInt(m[3]), m[4] ? m[4].split('.') : [], s);
}

export function semverLibrary(r: CelRegistrar): void {
  r.type('Semver', CelSemver);
  r.operator('Semver == Semver', ((a: CelSemver, b: CelSemver) => a.celEquals(b)) as never);
  const of = (s: string, n: boolean): CelSemver => {
    const v = parseSemver(s, n);
    if (!v) throw celError(`could not parse semver: ${s}`);
    return v;
  };
  r.fn('semver(string): Semver', ((s: string) => of(s, false)) as never);
  r.fn('semver(string, bool): Semver', ((s: string, n: boolean) => of(s, n)) as never);
  r.fn('isSemver(string): bool', ((s: string) => parseSemver(s) !== undefined) as never);
  r.fn('isSemver(string, bool): bool', ((s: string, n: boolean) => parseSemver(s, n) !== undefined) as never);
  r.fn('Semver.major(): int', ((v: CelSemver) => v.major) as never);
  r.fn('Semver.minor(): int', ((v: CelSemver) => v.minor) as never);
  r.fn('Semver.patch(): int', ((v: CelSemver) => v.patch) as never);
  r.fn('Semver.isGreaterThan(Semver): bool', ((a: CelSemver, b: CelSemver) => a.compareTo(b) > 0) as never);
  r.fn('Semver.isLessThan(Semver): bool', ((a: CelSemver, b: CelSemver) => a.compareTo(b) < 0) as never);
  r.fn('Semver.compareTo(Semver): int', ((a: CelSemver, b: CelSemver) => BigInt(a.compareTo(b))) as never);
}
