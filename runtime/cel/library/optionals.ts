// Optional-type functions cel-go's OptionalTypes() provides beyond the engine's core subset:
// `optional.ofNonZeroValue(v)`, `opt.optMap(x, expr)`, `opt.optFlatMap(x, expr)`, and `==`/`!=`
// between optionals (transition rules with optionalOldSelf compare `oldSelf` to `optional.of(...)`).

import {
  identName,
  type CelRegistrar,
  type MacroChecker,
  type MacroContext,
  type MacroEvaluator,
  type MacroNode,
  type MacroType,
} from '../registrar.ts';
import { subMillisecondNanos } from '../time.ts';
import { celError, Duration, Optional, UnsignedInt } from '../values.ts';

/** CEL's zero values: what ofNonZeroValue turns into optional.none(). */
export function isZeroValue(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0n || v === 0 || v === '') return true;
  if (v instanceof UnsignedInt) return v.valueOf() === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof Duration) return v.seconds === 0n && v.nanos === 0;
  if (v instanceof Date) return v.getTime() === 0 && subMillisecondNanos(v) === 0;
  if (v instanceof Map) return v.size === 0; // maps and object types (CelObject): no field set
  if (v instanceof Optional) return !v.hasValue();
  if (typeof v === 'object' && v.constructor === Object) return Object.keys(v).length === 0;
  return false;
}

interface OptMapState {
  flat: boolean;
  receiver: MacroNode;
  name: string;
  body: MacroNode;
  ctx?: MacroContext;
}

function optMapMacro(flat: boolean) {
  const fn = flat ? 'optFlatMap' : 'optMap';
  return {
    expand(args: MacroNode[], receiver: MacroNode | null): OptMapState {
      const name = identName(args[0]);
      if (!receiver || !name) throw celError(`${fn}() requires an identifier as its first argument`);
      return { flat, receiver, name, body: args[1] };
    },
    typeCheck(chk: MacroChecker, s: OptMapState, ctx: MacroContext): MacroType {
      const rt = chk.check(s.receiver, ctx);
      if (rt.kind !== 'optional' && rt.kind !== 'dyn')
        throw chk.createError('optional_expected', `${fn}() receiver must be optional, got '${rt.name}'`, s.receiver);
      s.ctx = ctx.forkWithVariable(s.name, rt.kind === 'optional' && rt.valueType ? rt.valueType : chk.getType('dyn'));
      const bt = chk.check(s.body, s.ctx);
      if (!s.flat) return chk.registry.getOptionalType(bt);
      if (bt.kind !== 'optional' && bt.kind !== 'dyn')
        throw chk.createError('optional_expected', `${fn}() expression must be optional, got '${bt.name}'`, s.body);
      return bt.kind === 'optional' ? bt : chk.registry.getOptionalType(bt);
    },
    evaluate(ev: MacroEvaluator, s: OptMapState, ctx: MacroContext): unknown {
      const o = ev.run(s.receiver, ctx);
      if (!(o instanceof Optional)) throw celError(`${fn}() receiver must be optional`);
      if (!o.hasValue()) return Optional.none();
      const r = ev.run(s.body, s.ctx!.reuse(ctx).setIterValue(o.value(), ev));
      if (!s.flat) return Optional.of(r);
      if (!(r instanceof Optional)) throw celError(`${fn}() expression must return an optional`);
      return r;
    },
  };
}

export function optionalsLibrary(r: CelRegistrar): void {
  r.fn('OptionalNamespace.ofNonZeroValue(A): optional<A>', ((_ns: unknown, v: unknown) =>
    isZeroValue(v) ? Optional.none() : Optional.of(v)) as never);
  // targets of the optional-entry rewrite (optional-syntax.ts): `[?x]` and `{?k: v}`
  r.fn('_optional_list_entry(optional<A>): list<A>', ((o: Optional) => (o.hasValue() ? [o.value()] : [])) as never);
  r.fn('_optional_map_entry(map<K, V>, K, optional<V>): map<K, V>', ((m: unknown, k: unknown, o: Optional) => {
    if (!(o instanceof Optional)) throw celError('optional map entry value must be optional');
    if (!o.hasValue()) return m;
    const out = m instanceof Map ? new Map(m) : new Map(Object.entries(m as Record<string, unknown>));
    out.set(k, o.value());
    return out;
  }) as never);
  r.macro('optMap', 2, true, optMapMacro(false), 'optional');
  r.macro('optFlatMap', 2, true, optMapMacro(true), 'optional');
  // the engine's `==` node handler is replaced by celEquals for objects; the checker needs the overload
  r.operator('optional<dyn> == optional<dyn>', ((a: unknown, b: unknown) => a === b) as never);
}


