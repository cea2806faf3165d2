// The validation context: a path stack (stringified only when an error is reported) and the error sink.
import type { FieldError } from './types.ts';

const PROP = 0;
const INDEX = 1;
const KEY = 2;

export class ValidationContext {
  readonly errors: FieldError[] = [];
  private readonly segs: (string | number)[] = [];
  private readonly kinds: number[] = [];
  constructor(
    /** True in validateUpdate. */
    readonly update: boolean,
    readonly featureGates: Record<string, boolean>,
  ) {}

  pushProp(name: string): void { this.segs.push(name); this.kinds.push(PROP); }
  pushIndex(i: number): void { this.segs.push(i); this.kinds.push(INDEX); }
  pushKey(k: string): void { this.segs.push(k); this.kinds.push(KEY); }
  pop(): void { this.segs.pop(); this.kinds.pop(); }
  get depth(): number { return this.segs.length; }

  /** The current path as upstream prints it (`spec.items[0].name`, `data[key]`). */
  path(): string {
    let s = '';
    for (let i = 0; i < this.segs.length; i++) {
      const k = this.kinds[i];
      const seg = this.segs[i];
      if (k === PROP) s = s === '' ? String(seg) : `${s}.${String(seg)}`;
      else s = `${s}[${String(seg)}]`;
    }
    return s;
  }

  add(e: FieldError): void { this.errors.push(e); }
}
