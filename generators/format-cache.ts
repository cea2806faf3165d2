// What the format worker made of each input (prettier's formatting of a file, json-schema-to-typescript's
// types), kept between runs of `npm run generate` when its inputs changed: a spec edit changes few
// generated files, and formatting the rest again is most of a generation's CPU. An entry is addressed
// by a hash of its whole input, salted with the libraries that make the output (the manifests of
// prettier, json-schema-to-typescript and the rest, npm's record of every installed package), the
// options and the Node.js version, so a hit is the output the worker would give. Only node: modules here.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRETTIER_OPTIONS, type FormatMemo } from './format-pool.ts';
import { cacheDir, librariesKey } from './generation-cache.ts';

const VERSION = '1';
/** Characters kept on disk: this run's entries first, then earlier ones (an edit undone hits again) up to this. */
const KEEP_CHARS = 32 * 1024 * 1024;

export class FileFormatCache implements FormatMemo {
  private readonly salt: string;
  private readonly earlier: Map<string, string>;
  private readonly used = new Map<string, string>();

  private constructor(private readonly file: string, toolchain: string) {
    this.salt = [`clusterspec-format-cache ${VERSION}`, JSON.stringify(PRETTIER_OPTIONS), `libraries ${librariesKey(toolchain)}`, `node ${process.version}`, ''].join('\n');
    this.earlier = new Map();
    if (!existsSync(file)) return;
    try {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { salt?: string; entries?: Array<[string, string]> };
      if (stored.salt === this.salt && Array.isArray(stored.entries)) this.earlier = new Map(stored.entries);
    } catch {
      // an unreadable cache is an empty one
    }
  }

  /** The cache of the generations of `root` (in its node_modules/.cache/clusterspec) by the toolchain at `toolchain`. */
  static open(root: string, toolchain: string): FileFormatCache {
    return new FileFormatCache(join(cacheDir(root), 'format.json'), toolchain);
  }

  /** Whether no earlier output is known (a first run): then the worker will be needed for certain. */
  get empty(): boolean {
    return this.earlier.size === 0;
  }

  keyOf(input: string): string {
    return createHash('sha256').update(this.salt).update(input).digest('hex');
  }

  get(key: string): string | undefined {
    const hit = this.used.get(key) ?? this.earlier.get(key);
    if (hit !== undefined) this.used.set(key, hit);
    return hit;
  }

  set(key: string, output: string): void {
    this.used.set(key, output);
  }

  /** Written to a temporary name and renamed, so a reader never sees half a file; a cache that cannot be written is not kept. */
  save(): void {
    const entries: Array<[string, string]> = [];
    let chars = 0;
    for (const source of [this.used, this.earlier]) {
      for (const [key, output] of source) {
        if (source === this.earlier && this.used.has(key)) continue;
        if (source === this.earlier && chars + output.length > KEEP_CHARS) break;
        entries.push([key, output]);
        chars += output.length;
      }
    }
    const dir = join(this.file, '..');
    const tmp = join(dir, `.tmp-format-${process.pid}.json`);
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(tmp, JSON.stringify({ salt: this.salt, entries }));
      renameSync(tmp, this.file);
    } catch {
      rmSync(tmp, { force: true });
    }
  }
}
