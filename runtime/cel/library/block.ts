// cel-go's block extension (cel.block, cel.index, cel.iterVar, cel.accuVar): the form cel-go's
// common-subexpression optimizer writes. Kubernetes does not enable it; environments opt in by name.
// `cel.index(i)`, `cel.iterVar(i, j)` and `cel.accuVar(i, j)` are rewritten into plain identifiers
// before parsing (the engine's macros only take identifiers as iteration variables); `cel.block`
// binds the slots in order, each seeing the ones before it.

import type { CelRegistrar, MacroChecker, MacroContext, MacroEvaluator, MacroNode, MacroType } from '../registrar.ts';
import { prevSignificant, tokenize } from '../optional-syntax.ts';
import { celError } from '../values.ts';

const INDEX_PREFIX = '_block_index_';

/** `cel.index(2)` -> `_block_index_2`, `cel.iterVar(1, 0)` -> `_block_iterVar_1_0` (same for accuVar). */
export function rewriteBlockSyntax(src: string): string {
  if (!src.includes('cel')) return src;
  const toks = tokenize(src);
  let out = '';
  let changed = false;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    const m = t.text === 'cel' && prevSignificant(toks, i)?.text !== '.' ? matchCall(toks, i) : undefined;
    if (!m) {
      out += t.text;
      continue;
    }
    out += m.name === 'index' ? `${INDEX_PREFIX}${m.args[0]}` : `_block_${m.name}_${m.args.join('_')}`;
    i = m.end;
    changed = true;
  }
  return changed ? out : src;
}

/** `cel . name ( int [, int] )` starting at token i, whitespace allowed between tokens. */
function matchCall(toks: { kind: string; text: string }[], i: number): { name: string; args: string[]; end: number } | undefined {
  const seq: { kind: string; text: string; at: number }[] = [];
  for (let j = i; j < toks.length && seq.length < 8; j++) if (toks[j].kind !== 'ws') seq.push({ ...toks[j], at: j });
  if (seq[1]?.text !== '.' || seq[3]?.text !== '(') return undefined;
  const name = seq[2]?.text;
  const arity = name === 'index' ? 1 : name === 'iterVar' || name === 'accuVar' ? 2 : 0;
  if (!arity) return undefined;
  const args: string[] = [];
  let k = 4;
  for (let a = 0; a < arity; a++) {
    if (seq[k]?.kind !== 'num' || !/^\d+$/.test(seq[k].text)) return undefined;
    args.push(seq[k].text);
    k++;
    if (a < arity - 1) {
      if (seq[k]?.text !== ',') return undefined;
      k++;
    }
  }
  if (seq[k]?.text !== ')') return undefined;
  return { name, args, end: seq[k].at };
}

interface BlockState {
  slots: MacroNode[];
  body: MacroNode;
  contexts: MacroContext[];
}

const block = {
  expand(args: MacroNode[]): BlockState {
    const list = args[0] as unknown as { op: string; args: MacroNode[] };
    if (list.op !== 'list') throw celError('cel.block() requires a list literal of slots');
    return { slots: list.args, body: args[1], contexts: [] };
  },
  typeCheck(chk: MacroChecker, s: BlockState, ctx: MacroContext): MacroType {
    let c = ctx;
    s.contexts = [];
    s.slots.forEach((slot, i) => {
      c = c.forkWithVariable(`${INDEX_PREFIX}${i}`, chk.check(slot, c));
      s.contexts.push(c);
    });
    return chk.check(s.body, c);
  },
  evaluate(ev: MacroEvaluator, s: BlockState, ctx: MacroContext): unknown {
    let c = ctx;
    s.slots.forEach((slot, i) => {
      c = s.contexts[i].reuse(c).setIterValue(ev.run(slot, c), ev);
    });
    return ev.run(s.body, c);
  },
};

export function blockLibrary(r: CelRegistrar): void {
  r.macro('block', 2, true, block, 'CelNamespace');
}
