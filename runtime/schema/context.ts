// The validation context: a path stack (stringified only when an error is reported) and the error sink.
// The stack is depth-indexed (`segs[i]`, `kinds[i]` for i < len) so that generated validators can
// write a segment in place (`segs[d] = key`) without pushing and popping.
import type { FieldError } from './types.ts';

export const PROP = 0;
export const INDEX = 1;
export const KEY = 2;

export class ValidationContext {
  errors: FieldError[] = [];
  /** The current depth (the number of current segments). */
  len = 0;
  /**
   * What remains of the CEL cost budget of this validation (CRDs: upstream's RuntimeCELCostBudget);
   * negative once it ran out (no further rule runs); infinite where there is none (built-in kinds).
   */
  celBudget = Number.POSITIVE_INFINITY;
  constructor(
    /** True in validateUpdate. */
    public update: boolean,
    readonly featureGates: Record<string, boolean>,
    /** Path segments; only the first `len` are current (a validator may lend its own arrays). */
    readonly segs: (string | number)[] = [],
    /** PROP, INDEX or KEY for each segment. */
    readonly kinds: number[] = [],
  ) {}

  pushProp(name: string): void { this.segs[this.len] = name; this.kinds[this.len++] = PROP; }
  pushIndex(i: number): void { this.segs[this.len] = i; this.kinds[this.len++] = INDEX; }
  pushKey(k: string): void { this.segs[this.len] = k; this.kinds[this.len++] = KEY; }
  pop(): void { this.len--; }
  get depth(): number { return this.len; }

  /** The current path as upstream prints it (`spec.items[0].name`, `data[key]`). */
  path(): string {
    return this.pathAt(this.len);
  }

  /** The path of the first `n` segments. */
  pathAt(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) {
      const k = this.kinds[i];
      const seg = this.segs[i];
      if (k === PROP) s = s === '' ? String(seg) : `${s}.${String(seg)}`;
      else s = `${s}[${String(seg)}]`;
    }
    return s;
  }

  add(e: FieldError): void { this.errors.push(e); }
}
