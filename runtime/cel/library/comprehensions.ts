// Two-variable comprehensions (cel-go ext): all(i, v, p), exists(i, v, p), existsOne(i, v, p),
// transformList(i, v, [filter,] expr), transformMap(k, v, [filter,] expr).

import {
  identName,
  type CelRegistrar,
  type MacroChecker,
  type MacroContext,
  type MacroEvaluator,
  type MacroNode,
  type MacroType,
} from '../registrar.ts';
import { celError } from '../values.ts';

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap';

interface State {
  kind: Kind;
  receiver: MacroNode;
  v1: string;
  v2: string;
  filter?: MacroNode;
  body: MacroNode;
  ctx1?: MacroContext;
  ctx2?: MacroContext;
}

function iterate(coll: unknown, fn: (k: unknown, v: unknown) => boolean | void): void {
  if (Array.isArray(coll)) {
    for (let i = 0; i < coll.length; i++) if (fn(BigInt(i), coll[i]) === false) return;
  } else if (coll instanceof Map) {
    for (const [k, v] of coll) if (fn(k, v) === false) return;
  } else if (coll !== null && typeof coll === 'object' && coll.constructor === Object) {
    for (const [k, v] of Object.entries(coll)) if (fn(k, v) === false) return;
  } else throw celError('expression of this type cannot be range of a comprehension (must be list or map)');
}

function define(kind: Kind, arity: number) {
  return {
    expand(args: MacroNode[], receiver: MacroNode | null): State {
      const v1 = identName(args[0]);
      const v2 = identName(args[1]);
      if (!receiver || !v1 || !v2) throw celError(`${kind}() requires two iteration variable identifiers`);
      if (v1 === v2) throw celError(`${kind}() iteration variables must differ`);
      return { kind, receiver, v1, v2, filter: arity === 4 ? args[2] : undefined, body: args[arity - 1] };
    },
    typeCheck(chk: MacroChecker, s: State, ctx: MacroContext): MacroType {
      // an empty literal (`[]`, `{}`) leaves the element types unbound in the engine: iterate it as dyn
      const emptyLiteral = (s.receiver.op === 'list' || s.receiver.op === 'map') && Array.isArray(s.receiver.args) && s.receiver.args.length === 0;
      const rt = emptyLiteral ? chk.getType('dyn') : chk.check(s.receiver, ctx);
      let t1: MacroType;
      let t2: MacroType;
      if (rt.kind === 'list') {
        t1 = chk.getType('int');
        t2 = rt.valueType ?? chk.getType('dyn');
      } else if (rt.kind === 'map') {
        t1 = rt.keyType ?? chk.getType('dyn');
        t2 = rt.valueType ?? chk.getType('dyn');
      } else if (rt.kind === 'dyn') {
        t1 = chk.getType('dyn');
        t2 = chk.getType('dyn');
      } else throw chk.createError('invalid_comprehension_range', `${s.kind}() range must be a list or map, got '${rt.name}'`, s.receiver);
      s.ctx1 = ctx.forkWithVariable(s.v1, t1);
      s.ctx2 = s.ctx1.forkWithVariable(s.v2, t2);
      if (s.filter) {
        const ft = chk.check(s.filter, s.ctx2);
        if (ft.name !== 'bool' && ft.kind !== 'dyn') throw chk.createError('invalid_macro_argument', `${s.kind}() filter must be bool`, s.filter);
      }
      const bt = chk.check(s.body, s.ctx2);
      if (s.kind === 'transformList') return chk.registry.getListType(bt);
      if (s.kind === 'transformMap') return chk.registry.getMapType(t1, bt);
      if (bt.name !== 'bool' && bt.kind !== 'dyn') throw chk.createError('invalid_macro_argument', `${s.kind}() predicate must be bool`, s.body);
      return chk.getType('bool');
    },
    evaluate(ev: MacroEvaluator, s: State, ctx: MacroContext): unknown {
      const coll = ev.run(s.receiver, ctx);
      const c1 = s.ctx1!.reuse(ctx);
      const c2 = s.ctx2!.reuse(c1);
      const bind = (k: unknown, v: unknown): MacroContext => {
        c1.setIterValue(k, ev);
        return c2.setIterValue(v, ev);
      };
      const asBool = (x: unknown): boolean => {
        if (typeof x !== 'boolean') throw celError(`${s.kind}() predicate must return bool`);
        return x;
      };
      switch (s.kind) {
        case 'all':
        case 'exists': {
          const want = s.kind === 'exists';
          let result = !want;
          let err: unknown;
          iterate(coll, (k, v) => {
            try {
              if (asBool(ev.run(s.body, bind(k, v))) === want) {
                result = want;
                return false;
              }
            } catch (e) {
              err ??= e;
            }
          });
          if (result !== want && err !== undefined) throw err;
          return result;
        }
        case 'existsOne': {
          let n = 0;
          iterate(coll, (k, v) => {
            if (asBool(ev.run(s.body, bind(k, v)))) n++;
          });
          return n === 1;
        }
        case 'transformList': {
          const out: unknown[] = [];
          iterate(coll, (k, v) => {
            const c = bind(k, v);
            if (s.filter && !asBool(ev.run(s.filter, c))) return;
            out.push(ev.run(s.body, c));
          });
          return out;
        }
        case 'transformMap': {
          const out = new Map<unknown, unknown>();
          iterate(coll, (k, v) => {
            const c = bind(k, v);
            if (s.filter && !asBool(ev.run(s.filter, c))) return;
            out.set(k, ev.run(s.body, c));
          });
          return out;
        }
      }
    },
  };
}

export function comprehensionsLibrary(r: CelRegistrar): void {
  r.macro('all', 3, true, define('all', 3));
  r.macro('exists', 3, true, define('exists', 3));
  r.macro('existsOne', 3, true, define('existsOne', 3));
  r.macro('transformList', 3, true, define('transformList', 3));
  r.macro('transformList', 4, true, define('transformList', 4));
  r.macro('transformMap', 3, true, define('transformMap', 3));
  r.macro('transformMap', 4, true, define('transformMap', 4));
}
