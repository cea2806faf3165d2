// The engine's checked AST as this layer sees it (duck-typed: the engine's .d.ts does not describe
// it), child traversal, and the neutral view the static cost estimator reads. Separate because the
// pre-check fix-ups, the instrumentation and the estimator all walk it.

import type { MacroChecker, MacroContext, MacroType } from './registrar.ts';

export interface InternalMeta {
  check: (chk: MacroChecker, ast: InternalNode, ctx: MacroContext) => MacroType;
  evaluate: (ev: unknown, ast: InternalNode, ctx: unknown) => unknown;
  alternate?: InternalNode;
  macro?: Record<string, unknown> & { evaluate: (ev: unknown, m: unknown, ctx: unknown) => unknown };
}
export interface InternalNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
  meta: InternalMeta;
  checkedType?: { name: string };
  handle?: (...a: unknown[]) => unknown;
  evaluate: (ev: unknown, ast: InternalNode, ctx: unknown) => unknown;
  left?: InternalNode;
  right?: InternalNode;
}

function isNode(v: unknown): v is InternalNode {
  return typeof v === 'object' && v !== null && 'op' in v && 'meta' in v && typeof (v as InternalNode).op === 'string';
}

/** The direct child nodes of a node (arguments, a macro's expansion, an alternate). */
export function childNodes(n: InternalNode): InternalNode[] {
  const out: InternalNode[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (depth > 3 || v === null || typeof v !== 'object') return;
    if (isNode(v)) {
      out.push(v);
      return;
    }
    if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else if (v.constructor === Object) for (const x of Object.values(v)) visit(x, depth + 1);
  };
  visit(n.args, 0);
  if (n.meta.alternate) out.push(n.meta.alternate);
  if (n.meta.macro) for (const [k, v] of Object.entries(n.meta.macro)) if (k !== 'ast') visit(v, 1);
  return out;
}

/** A node of the checked AST, as the static cost estimator sees it. */
export interface AstView {
  op: string;
  /** Function or field name for call/rcall/select nodes. */
  name?: string;
  /** Literal value for `value` nodes, identifier name for `id` nodes. */
  value?: unknown;
  children: AstView[];
  /** For comprehensions: iteration variable(s), range, loop step, and the rest. */
  comprehension?: { iterVars: string[]; range: AstView; step: AstView[]; other: AstView[] };
  type: string;
  start: number;
}

/** The neutral view of a checked node and its subtree. */
export function viewOf(n: InternalNode): AstView {
  const type = n.checkedType?.name ?? 'dyn';
  if (n.meta.alternate) {
    const v = viewOf(n.meta.alternate);
    if (n.op === 'id') return { ...v, op: 'value', start: n.start };
    return v;
  }
  const base = { type, start: n.start };
  switch (n.op) {
    case 'value':
      return { ...base, op: 'value', value: n.args, children: [] };
    case 'id':
      return { ...base, op: 'id', value: n.args, children: [] };
    case '.':
    case '.?': {
      const [l, f] = n.args as [InternalNode, string];
      return { ...base, op: n.op, name: f, children: [viewOf(l)] };
    }
    case 'call': {
      const [name, args] = n.args as [string, InternalNode[]];
      const children = n.meta.macro ? childNodes(n).map(viewOf) : args.map(viewOf);
      return { ...base, op: n.meta.macro ? 'macro' : 'call', name, children };
    }
    case 'rcall': {
      const [name, recv, args] = n.args as [string, InternalNode, InternalNode[]];
      if (n.meta.macro) return { ...base, op: 'macro', name, children: [recv, ...args].map(viewOf) };
      return { ...base, op: 'rcall', name, children: [recv, ...args].map(viewOf) };
    }
    case 'comprehension': {
      const a = n.args as { iterVarName: string; iterable: InternalNode; init: InternalNode; step: InternalNode };
      return {
        ...base,
        op: 'comprehension',
        children: [],
        comprehension: { iterVars: [a.iterVarName], range: viewOf(a.iterable), step: [viewOf(a.step)], other: [viewOf(a.init)] },
      };
    }
    case 'map': {
      const entries = n.args as [InternalNode, InternalNode][];
      return { ...base, op: 'map', children: entries.flatMap(([k, v]) => [viewOf(k), viewOf(v)]) };
    }
    default:
      return { ...base, op: n.op, children: childNodes(n).map(viewOf) };
  }
}
