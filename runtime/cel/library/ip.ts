// Kubernetes IP and CIDR libraries. Like upstream, IPv4-mapped IPv6 addresses and zones are rejected.

import type { CelRegistrar } from '../registrar.ts';
import { celError } from '../values.ts';

export class CelIP {
  constructor(
    readonly family: 4 | 6,
    /** Address as an unsigned integer (32 or 128 bits). */
    readonly value: bigint,
  ) {}
  toString(): string {
    return formatIP(this.family, this.value);
  }
  celEquals(o: unknown): boolean {
    return o instanceof CelIP && o.family === this.family && o.value === this.value;
  }
}

export class CelCIDR {
  constructor(
    readonly ip: CelIP,
    readonly prefix: number,
  ) {}
  get bits(): number {
    return this.ip.family === 4 ? 32 : 128;
  }
  mask(): bigint {
    const b = BigInt(this.bits);
    const p = BigInt(this.prefix);
    return ((1n << b) - 1n) ^ ((1n << (b - p)) - 1n);
  }
  toString(): string {
    return `${this.ip.toString()}/${this.prefix}`;
  }
  celEquals(o: unknown): boolean {
    return o instanceof CelCIDR && o.prefix === this.prefix && this.ip.celEquals(o.ip);
  }
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseIPv6(s: string): bigint | undefined {
  if (s.includes('%')) return undefined;
  let str = s;
  let tail: bigint[] = [];
  const lastColon = str.lastIndexOf(':');
  if (str.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(str.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [v4 >> 16n, v4 & 0xffffn];
    str = `${str.slice(0, lastColon + 1)}`;
    if (str.endsWith('::')) str = str.slice(0, -1) + ':';
    else str = str.slice(0, -1);
    if (str === ':') str = '::';
  }
  const dbl = str.split('::');
  if (dbl.length > 2) return undefined;
  const parseGroups = (x: string): bigint[] | undefined => {
    if (x === '') return [];
    const gs = x.split(':');
    const out: bigint[] = [];
    for (const g of gs) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(BigInt(`0x${g}`));
    }
    return out;
  };
  const head = parseGroups(dbl[0]);
  const rest = dbl.length === 2 ? parseGroups(dbl[1]) : [];
  if (!head || !rest) return undefined;
  const all = dbl.length === 2 ? [...head, ...rest] : head;
  const total = all.length + tail.length;
  let groups: bigint[];
  if (dbl.length === 2) {
    if (total > 7) return undefined;
    groups = [...head, ...new Array<bigint>(8 - total).fill(0n), ...rest, ...tail];
  } else {
    if (total !== 8) return undefined;
    groups = [...head, ...tail];
  }
  let v = 0n;
  for (const g of groups) v = (v << 16n) | g;
  return v;
}

export function parseIP(s: string): CelIP | undefined {
  if (s.includes(':')) {
    const v = parseIPv6(s);
    if (v === undefined) return undefined;
    if (v >> 32n === 0xffffn) return undefined; // IPv4-mapped IPv6 not allowed
    return new CelIP(6, v);
  }
  const v = parseIPv4(s);
  return v === undefined ? undefined : new CelIP(4, v);
}

function formatIP(family: 4 | 6, v: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((sh) => String((v >> sh) & 0xffn)).join('.');
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  // longest run of zeros (length >= 2) becomes ::
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function parseCIDR(s: string): CelCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const p = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
  const prefix = Number(p);
  if (prefix > (ip.family === 4 ? 32 : 128)) return undefined;
  return new CelCIDR(ip, prefix);
}

function containsIP(c: CelCIDR, ip: CelIP): boolean {
  if (ip.family !== c.ip.family) return false;
  const m = c.mask();
  return (ip.value & m) === (c.ip.value & m);
}

export function ipLibrary(r: CelRegistrar): void {
  r.type('net.IP', CelIP);
  r.type('net.CIDR', CelCIDR);
  const ipOf = (s: string): CelIP => {
    const ip = parseIP(s);
    if (!ip) throw celError(`IP Address "${s}" parse error during conversion from string`);
    return ip;
  };
  const cidrOf = (s: string): CelCIDR => {
    const c = parseCIDR(s);
    if (!c) throw celError(`network address parse error during conversion from string: ${s}`);
    return c;
  };
  r.fn('ip(string): net.IP', ipOf as never);
  r.fn('isIP(string): bool', ((s: string) => parseIP(s) !== undefined) as never);
  const ns = r.namespace('ip');
  r.fn(`${ns}.isCanonical(string): bool`, ((_n: unknown, s: string) => ipOf(s).toString() === s) as never);
  r.operator('net.IP == net.IP', ((a: CelIP, b: CelIP) => a.celEquals(b)) as never);
  r.operator('net.CIDR == net.CIDR', ((a: CelCIDR, b: CelCIDR) => a.celEquals(b)) as never);
  r.fn('net.IP.family(): int', ((ip: CelIP) => BigInt(ip.family)) as never);
  r.fn('net.IP.isUnspecified(): bool', ((ip: CelIP) => ip.value === 0n) as never);
  r.fn('net.IP.isLoopback(): bool', ((ip: CelIP) => (ip.family === 4 ? ip.value >> 24n === 127n : ip.value === 1n)) as never);
  r.fn('net.IP.isLinkLocalMulticast(): bool', ((ip: CelIP) =>
    ip.family === 4 ? ip.value >> 8n === 0xe00000n : ip.value >> 112n === 0xff02n) as never);
  r.fn('net.IP.isLinkLocalUnicast(): bool', ((ip: CelIP) =>
    ip.family === 4 ? ip.value >> 16n === 0xa9fen : ip.value >> 118n === 0x3fan) as never);
  r.fn('net.IP.isGlobalUnicast(): bool', ((ip: CelIP) => {
    if (ip.family === 4) {
      if (ip.value === 0xffffffffn || ip.value === 0n) return false;
      const a = ip.value >> 24n;
      if (a === 127n || (a >= 224n && a <= 239n)) return false;
      if (ip.value >> 16n === 0xa9fen) return false;
      return true;
    }
    if (ip.value === 0n || ip.value === 1n) return false;
    if (ip.value >> 120n === 0xffn) return false;
    if (ip.value >> 118n === 0x3fan) return false;
    return true;
  }) as never);
  r.fn('string(net.IP): string', ((ip: CelIP) => ip.toString()) as never);
  r.fn('cidr(string): net.CIDR', cidrOf as never);
  r.fn('isCIDR(string): bool', ((s: string) => parseCIDR(s) !== undefined) as never);
  r.fn('net.CIDR.containsIP(net.IP): bool', ((c: CelCIDR, ip: CelIP) => containsIP(c, ip)) as never);
  r.fn('net.CIDR.containsIP(string): bool', ((c: CelCIDR, s: string) => containsIP(c, ipOf(s))) as never);
  const containsCIDR = (c: CelCIDR, o: CelCIDR): boolean => o.prefix >= c.prefix && containsIP(c, o.ip);
  r.fn('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR as never);
  r.fn('net.CIDR.containsCIDR(string): bool', ((c: CelCIDR, s: string) => containsCIDR(c, cidrOf(s))) as never);
  r.fn('net.CIDR.ip(): net.IP', ((c: CelCIDR) => c.ip) as never);
  r.fn('net.CIDR.masked(): net.CIDR', ((c: CelCIDR) => new CelCIDR(new CelIP(c.ip.family, c.ip.value & c.mask()), c.prefix)) as never);
  r.fn('net.CIDR.prefixLength(): int', ((c: CelCIDR) => BigInt(c.prefix)) as never);
  r.fn('string(net.CIDR): string', ((c: CelCIDR) => c.toString()) as never);
}
