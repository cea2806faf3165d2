// Static cost estimate of a checked rule, from the schema's maxItems/maxLength/maxProperties.
// Modelled on cel-go's estimator as Kubernetes uses it: sizes unknown from the schema are derived
// from the maximum request size, iteration multiplies the step cost by the range size, and
// string/list traversals cost 0.1 per unit.

import type { AstView } from './engine.ts';
import type { Shape } from './schema-types.ts';

/** Upstream's runtime budget of one evaluation (cost units), PerCallLimit. */
export const PER_CALL_COST_LIMIT = 1_000_000;
/** Upstream's limit on one rule's estimated cost times how often it can run (StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Upstream's runtime budget of all CEL rules evaluated while validating one custom resource (RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Upstream's limit on the summed estimated cost of all rules of one CRD (StaticEstimatedCRDCostLimit). */
export const PER_CRD_COST_LIMIT = 100_000_000;
/** Maximum request size the estimate assumes when the schema gives no bound (3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

const TRAVERSAL = 0.1;
const REGEX_FACTOR = 0.25;

interface Est {
  cost: number;
  /** Maximum size (string length, list items, map entries) when the value is sized. */
  size: number;
  shape?: Shape;
}

/** Smallest JSON serialization of a value of this shape (drives the size derived from request size). */
function minSerializedSize(s: Shape | undefined): number {
  if (!s) return 1;
  switch (s.k) {
    case 'string':
    case 'timestamp':
    case 'duration':
    case 'bytes':
      return 2;
    case 'list':
    case 'map':
    case 'object':
      return 2;
    default:
      return 1;
  }
}

export function maxSizeOf(s: Shape | undefined): number {
  if (!s) return MAX_REQUEST_SIZE_BYTES;
  const sch = s.schema;
  switch (s.k) {
    case 'string':
    case 'bytes': {
      if (sch?.maxLength !== undefined) return s.k === 'bytes' ? Math.ceil(sch.maxLength * 0.75) : sch.maxLength;
      if (sch?.enum?.length) return Math.max(...sch.enum.map((e) => String(e).length));
      return MAX_REQUEST_SIZE_BYTES - 2;
    }
    case 'timestamp':
    case 'duration':
      return 64;
    case 'list':
      if (sch?.maxItems !== undefined) return sch.maxItems;
      return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(s.items) + 1));
    case 'map':
      if (sch?.maxProperties !== undefined) return sch.maxProperties;
      return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(s.values) + 4));
    case 'object':
      return s.fields.size;
    default:
      return MAX_REQUEST_SIZE_BYTES;
  }
}

function elementShape(s: Shape | undefined): Shape | undefined {
  if (!s) return undefined;
  if (s.k === 'list') return s.items;
  if (s.k === 'map') return { k: 'string' };
  return undefined;
}

function valueShape(s: Shape | undefined): Shape | undefined {
  if (!s) return undefined;
  if (s.k === 'list') return s.items;
  if (s.k === 'map') return s.values;
  return undefined;
}

function literalSize(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array) return v.length;
  return 1;
}

const STRING_TRAVERSING = new Set([
  'contains', 'startsWith', 'endsWith', 'lowerAscii', 'upperAscii', 'trim', 'indexOf', 'lastIndexOf',
  'replace', 'split', 'substring', 'charAt', 'join', 'reverse', 'quote', 'format', 'string', 'bytes',
  'int', 'uint', 'double', 'url', 'isURL', 'ip', 'isIP', 'cidr', 'isCIDR', 'quantity', 'isQuantity',
  'semver', 'isSemver', 'validate', 'timestamp', 'duration', 'base64', 'hex',
]);
const REGEX_FUNCS = new Set(['matches', 'find', 'findAll']);
const LIST_TRAVERSING = new Set(['isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf', 'join', 'contains', 'equivalent', 'intersects', 'distinct', 'flatten', 'reverse', 'sort', 'slice']);

/** Estimated worst-case cost of one evaluation of the rule. */
export function estimateCost(root: AstView, vars: Record<string, Shape | undefined>): number {
  const scope = new Map<string, Shape | undefined>(Object.entries(vars));
  return Math.ceil(est(root, scope).cost);
}

function est(n: AstView, vars: Map<string, Shape | undefined>): Est {
  switch (n.op) {
    case 'value':
      return { cost: 0, size: literalSize(n.value) };
    case 'id': {
      const shape = vars.get(String(n.value));
      return { cost: 1, size: maxSizeOf(shape), shape };
    }
    case '.':
    case '.?': {
      const l = est(n.children[0], vars);
      let shape: Shape | undefined;
      if (l.shape?.k === 'object') {
        for (const f of l.shape.fields.values()) if (f.cel === n.name) shape = f.shape;
      } else if (l.shape?.k === 'map') shape = l.shape.values;
      return { cost: l.cost + 1, size: maxSizeOf(shape), shape };
    }
    case '[]':
    case '[?]': {
      const l = est(n.children[0], vars);
      const r = est(n.children[1], vars);
      const shape = valueShape(l.shape);
      return { cost: l.cost + r.cost + 1, size: maxSizeOf(shape), shape };
    }
    case 'comprehension': {
      const c = n.comprehension!;
      const range = est(c.range, vars);
      const inner = new Map(vars);
      const el = elementShape(range.shape);
      c.iterVars.forEach((v, i) => inner.set(v, c.iterVars.length === 2 && i === 1 ? valueShape(range.shape) : i === 0 && c.iterVars.length === 2 && range.shape?.k === 'list' ? { k: 'int' } : el));
      let stepCost = 0;
      let stepSize = 1;
      for (const s of c.step) {
        const e = est(s, inner);
        stepCost += e.cost;
        stepSize = Math.max(stepSize, e.size);
      }
      let other = 0;
      for (const o of c.other) other += est(o, vars).cost;
      const iterations = range.size;
      // each iteration: the step, plus the loop condition and accumulator bookkeeping
      return { cost: range.cost + other + iterations * (stepCost + 1), size: iterations * Math.max(1, stepSize > 1 ? 1 : 1) };
    }
    case 'macro': {
      // has(), cel.bind and library macros (two-variable comprehensions are expanded by the library
      // into comprehension views when possible); cost: children plus, for iterating macros, range x step
      let cost = 1;
      let size = 1;
      if (n.name === 'has') {
        for (const ch of n.children) cost += est(ch, vars).cost;
        return { cost, size: 1 };
      }
      if (['all', 'exists', 'existsOne', 'exists_one', 'transformList', 'transformMap', 'transformMapEntry'].includes(n.name ?? '') && n.children.length >= 3) {
        const range = est(n.children[0], vars);
        const inner = new Map(vars);
        const iv = n.children.slice(1, -1).map((c) => (c.op === 'id' ? String(c.value) : ''));
        if (iv.length === 2) {
          inner.set(iv[0], range.shape?.k === 'list' ? { k: 'int' } : { k: 'string' });
          inner.set(iv[1], valueShape(range.shape));
        } else if (iv.length === 1) inner.set(iv[0], elementShape(range.shape));
        const step = est(n.children[n.children.length - 1], inner);
        return { cost: range.cost + range.size * (step.cost + 1), size: range.size };
      }
      for (const ch of n.children) {
        const e = est(ch, vars);
        cost += e.cost;
        size = Math.max(size, e.size);
      }
      return { cost, size };
    }
    case 'call':
    case 'rcall': {
      const parts = n.children.map((c) => est(c, vars));
      let cost = 1;
      for (const p of parts) cost += p.cost;
      const name = n.name ?? '';
      const first = parts[0];
      if (REGEX_FUNCS.has(name) && parts.length >= 2) {
        const strSize = first.size;
        const reSize = parts[1].size;
        cost += Math.ceil(strSize * TRAVERSAL) * Math.ceil(reSize * REGEX_FACTOR);
      } else if (first && n.type !== 'bool' && LIST_TRAVERSING.has(name) && first.shape && (first.shape.k === 'list' || first.shape.k === 'map')) {
        cost += Math.ceil(first.size * TRAVERSAL);
      } else if (first && (LIST_TRAVERSING.has(name) || STRING_TRAVERSING.has(name))) {
        cost += Math.ceil(parts.reduce((a, p) => a + p.size, 0) * TRAVERSAL);
      }
      const outSize = n.type === 'string' || n.type.startsWith('list') ? parts.reduce((a, p) => a + p.size, 0) : 1;
      return { cost, size: outSize };
    }
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
    case 'in': {
      const l = est(n.children[0], vars);
      const r = est(n.children[1], vars);
      const sized = n.children[0].type === 'string' || n.children[0].type.startsWith('list') || n.children[0].type.startsWith('map') || n.op === 'in';
      const trav = sized ? Math.ceil(Math.min(l.size, r.size) * TRAVERSAL) : 0;
      return { cost: l.cost + r.cost + 1 + (n.op === 'in' ? Math.ceil(r.size * TRAVERSAL) : trav), size: 1 };
    }
    case '+': {
      const l = est(n.children[0], vars);
      const r = est(n.children[1], vars);
      const sized = n.type === 'string' || n.type.startsWith('list') || n.type === 'bytes';
      const size = sized ? l.size + r.size : 1;
      return { cost: l.cost + r.cost + 1 + (sized ? Math.ceil(size * TRAVERSAL) : 0), size, shape: sized ? l.shape : undefined };
    }
    case '?:': {
      const [c, a, b] = n.children.map((x) => est(x, vars));
      return { cost: c.cost + Math.max(a.cost, b.cost), size: Math.max(a.size, b.size), shape: a.shape ?? b.shape };
    }
    case 'list': {
      let cost = 0;
      for (const ch of n.children) cost += est(ch, vars).cost;
      return { cost: cost + 1, size: n.children.length };
    }
    case 'map': {
      let cost = 0;
      for (const ch of n.children) cost += est(ch, vars).cost;
      return { cost: cost + 1, size: n.children.length / 2 };
    }
    default: {
      let cost = 1;
      let size = 1;
      for (const ch of n.children) {
        const e = est(ch, vars);
        cost += e.cost;
        size = Math.max(size, e.size);
      }
      return { cost, size };
    }
  }
}
