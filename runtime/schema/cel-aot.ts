// The built-in types' CEL rules compiled to JavaScript at generation time (the interpreter stays for
// CRDs and as the reference). Only a subset compiles: field selection and has(), string, int and
// bool literals and comparisons, &&, ||, !, ?:, `in`, size(), startsWith/endsWith/contains,
// lowerAscii, split, matches, string concatenation, indexing, the all/exists/filter macros over
// lists and maps, and format.dns1123Subdomain()/dns1123Label() validation, with the static types the rule's schema gives (runtime/cel/schema-types.ts). The
// compiled function answers only `true` or throws BAIL (cel-aot-runtime.ts): every other answer, and
// every value whose CEL form differs from its JSON (timestamps, bytes, quantities, sets compared as
// sets), is the interpreter's. A rule outside the subset is not compiled (null).
import type { Schema, ValidationRule } from './types.ts';
import { CelEnvironment, type AstView } from '../cel/engine.ts';
import { buildShapes, type Shape } from '../cel/schema-types.ts';
import { defaultIsResource } from '../cel/rules.ts';
import '../cel/libraries.ts';

class Unsupported extends Error {}

type Prim = 'string' | 'int' | 'bool';
/** A static type: a schema shape, or a literal list (its elements' type when all agree). */
type T = Shape | { k: 'literalList'; items: Prim | null };

/** `sure`: the code yields a JS value of its primitive type whatever the input (no run-time assertion needed). */
interface Compiled { code: string; t: T; sure?: boolean }

const STRING: T = { k: 'string' };
const INT: T = { k: 'int' };
const BOOL: T = { k: 'bool' };

function prim(t: T): Prim | null {
  return t.k === 'string' || t.k === 'int' || t.k === 'bool' ? t.k : null;
}

function unsupported(what: string): never {
  throw new Unsupported(what);
}

/** The value asserted to its primitive type at run time. */
function asserted(c: Compiled): string {
  if (c.sure && prim(c.t) !== null) return c.code;
  switch (prim(c.t)) {
    case 'string': return `A.S(${c.code})`;
    case 'int': return `A.I(${c.code})`;
    case 'bool': return `A.B(${c.code})`;
    default: return unsupported('not a primitive');
  }
}

function need(c: Compiled, p: Prim): string {
  if (prim(c.t) !== p) unsupported(`expected ${p}`);
  return asserted(c);
}

class RuleCompiler {
  private vars = 0;
  constructor(private readonly scope: Map<string, Compiled>) {}

  compile(n: AstView): Compiled {
    switch (n.op) {
      case 'value': return this.literal(n.value);
      case 'id': {
        const v = this.scope.get(String(n.value));
        return v ?? unsupported(`identifier ${String(n.value)}`);
      }
      case '.': return this.select(this.compile(n.children[0]), n.name ?? '');
      case 'macro': {
        if (n.name !== 'has') unsupported(`macro ${n.name}`);
        const sel = n.children[0];
        if (sel?.op !== '.') unsupported('has() of a non-field');
        const base = this.compile(sel.children[0]);
        return { code: `A.has(${base.code}, ${JSON.stringify(this.fieldKey(base.t, sel.name ?? ''))})`, t: BOOL, sure: true };
      }
      case '!_': return { code: `!${need(this.compile(n.children[0]), 'bool')}`, t: BOOL, sure: true };
      case '-_': {
        const c = n.children[0];
        if (c.op !== 'value' || typeof c.value !== 'bigint') unsupported('negation');
        return this.literal(-c.value);
      }
      case '&&':
      case '||': {
        const [a, b] = n.children.map((c) => need(this.compile(c), 'bool'));
        return { code: `(${a} ${n.op} ${b})`, t: BOOL, sure: true };
      }
      case '?:': {
        const cond = need(this.compile(n.children[0]), 'bool');
        const a = this.compile(n.children[1]);
        const b = this.compile(n.children[2]);
        const t = prim(a.t) !== null && prim(a.t) === prim(b.t) ? a.t : sameKind(a.t, b.t) ? a.t : unsupported('?: of two types');
        return { code: `(${cond} ? ${a.code} : ${b.code})`, t, sure: a.sure === true && b.sure === true && prim(t) !== null };
      }
      case '==':
      case '!=': return this.equality(n);
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const [a, b] = n.children.map((c) => need(this.compile(c), 'int'));
        return { code: `(${a} ${n.op} ${b})`, t: BOOL, sure: true };
      }
      case '+': {
        const [a, b] = n.children.map((c) => need(this.compile(c), 'string'));
        return { code: `(${a} + ${b})`, t: STRING, sure: true };
      }
      case 'in': return this.membership(n);
      case 'list': {
        const items = n.children.map((c) => this.compile(c));
        const kinds = new Set(items.map((i) => prim(i.t)));
        const only = kinds.size === 1 ? [...kinds][0] : null;
        if (items.length && only === null) unsupported('list of mixed values');
        return { code: `[${items.map((i) => i.code).join(', ')}]`, t: { k: 'literalList', items: only } };
      }
      case '[]': {
        const list = this.compile(n.children[0]);
        const i = n.children[1];
        if (list.t.k !== 'list' || i.op !== 'value' || typeof i.value !== 'bigint') unsupported('index');
        return { code: `A.idx(${list.code}, ${Number(i.value)})`, t: list.t.items };
      }
      case 'call':
      case 'rcall': return this.call(n);
      case 'comprehension': return this.comprehension(n);
      default: return unsupported(`operator ${n.op}`);
    }
  }

  private literal(v: unknown): Compiled {
    if (typeof v === 'string') return { code: JSON.stringify(v), t: STRING, sure: true };
    if (typeof v === 'boolean') return { code: String(v), t: BOOL, sure: true };
    if (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return { code: `(${String(v)})`, t: INT, sure: true };
    return unsupported('literal');
  }

  /** The JSON key of CEL field `name` of an object (escaped names such as `__namespace__`), or a map key. */
  private fieldKey(t: T, name: string): string {
    if (t.k === 'map') return name;
    if (t.k !== 'object') return unsupported('select on a non-object');
    for (const [json, f] of t.fields) if (f.cel === name) return json;
    return unsupported(`no field ${name}`);
  }

  private select(base: Compiled, name: string): Compiled {
    const key = this.fieldKey(base.t, name);
    const t: T = base.t.k === 'map' ? base.t.values : (base.t as Extract<Shape, { k: 'object' }>).fields.get(key)!.shape;
    return { code: `A.sel(${base.code}, ${JSON.stringify(key)})`, t };
  }

  private equality(n: AstView): Compiled {
    const [a, b] = n.children.map((c) => this.compile(c));
    const pa = prim(a.t);
    if (pa !== null && pa === prim(b.t)) return { code: `(${asserted(a)} ${n.op === '==' ? '===' : '!=='} ${asserted(b)})`, t: BOOL, sure: true };
    if (!sameKind(a.t, b.t)) unsupported('== of two types');
    // equal JSON is equal CEL; anything else is the interpreter's
    return { code: `${n.op === '!=' ? '!' : ''}A.eq(${a.code}, ${b.code})`, t: BOOL, sure: true };
  }

  private membership(n: AstView): Compiled {
    const [x, c] = n.children.map((ch) => this.compile(ch));
    const s = need(x, 'string');
    if (c.t.k === 'literalList' && c.t.items === 'string') return { code: `${c.code}.includes(${s})`, t: BOOL, sure: true };
    if (c.t.k === 'map') return { code: `A.inMap(${s}, ${c.code})`, t: BOOL, sure: true };
    if (c.t.k === 'list' && c.t.items.k === 'string') return { code: `A.inStrings(${s}, ${c.code})`, t: BOOL, sure: true };
    return unsupported('in');
  }

  private call(n: AstView): Compiled {
    const format = this.formatInvalid(n);
    if (format) return format;
    const args = n.children.map((c) => this.compile(c));
    const [recv, arg] = args;
    switch (`${n.name}/${args.length}`) {
      case 'size/1': {
        const t = recv.t.k;
        if (t === 'string') return { code: `A.strSize(${recv.code})`, t: INT, sure: true };
        if (t === 'list') return { code: `A.L(${recv.code}).length`, t: INT, sure: true };
        if (t === 'map') return { code: `A.mapSize(${recv.code})`, t: INT, sure: true };
        return unsupported('size');
      }
      case 'startsWith/2':
      case 'endsWith/2':
      case 'contains/2':
        if (n.op !== 'rcall') unsupported(n.name ?? '');
        return { code: `${need(recv, 'string')}.${n.name === 'contains' ? 'includes' : n.name}(${need(arg, 'string')})`, t: BOOL, sure: true };
      case 'lowerAscii/1': return { code: `A.lower(${need(recv, 'string')})`, t: STRING, sure: true };
      case 'split/2': {
        const sep = n.children[1];
        if (sep.op !== 'value' || typeof sep.value !== 'string' || sep.value === '') unsupported('split');
        return { code: `${need(recv, 'string')}.split(${JSON.stringify(sep.value)})`, t: { k: 'list', items: STRING as Shape } };
      }
      case 'matches/2': {
        const p = n.children[1];
        if (n.op !== 'rcall' || p.op !== 'value' || typeof p.value !== 'string') unsupported('matches');
        const js = asciiRegExpSource(p.value);
        if (js !== null) return { code: `A.matchesAscii(${need(recv, 'string')}, ${JSON.stringify(p.value)}, /${js}/)`, t: BOOL, sure: true };
        return { code: `A.matches(${need(recv, 'string')}, ${JSON.stringify(p.value)})`, t: BOOL, sure: true };
      }
      default: return unsupported(`function ${n.name}`);
    }
  }

  /** `format.dns1123Subdomain().validate(x).hasValue()` (and dns1123Label): whether x is invalid. */
  private formatInvalid(n: AstView): Compiled | null {
    if (n.op !== 'rcall' || n.name !== 'hasValue' || n.children.length !== 1) return null;
    const validate = n.children[0];
    if (validate.op !== 'rcall' || validate.name !== 'validate' || validate.children.length !== 2) return null;
    const [fmt, x] = validate.children;
    const name = fmt.name;
    if (fmt.op !== 'rcall' || (name !== 'dns1123Subdomain' && name !== 'dns1123Label') || fmt.children.length !== 1 || fmt.children[0].op !== 'value') return null;
    return { code: `!A.${name}(${need(this.compile(x), 'string')})`, t: BOOL, sure: true };
  }

  /** all, exists and filter (the only comprehensions whose loop the view shows unambiguously). */
  private comprehension(n: AstView): Compiled {
    const c = n.comprehension;
    if (!c || c.iterVars.length !== 1 || c.step.length !== 1 || c.other.length !== 1) return unsupported('comprehension');
    const range = this.compile(c.range);
    let items: string;
    let itemT: T;
    if (range.t.k === 'list') {
      items = `A.L(${range.code})`;
      itemT = range.t.items;
    } else if (range.t.k === 'map') {
      items = `A.keys(${range.code})`;
      itemT = STRING;
    } else return unsupported('comprehension range');
    const name = `v${this.vars++}`;
    const outer = this.scope.get(c.iterVars[0]);
    this.scope.set(c.iterVars[0], { code: name, t: itemT });
    try {
      const step = c.step[0];
      const init = c.other[0];
      if (step.op !== '?:') return unsupported('comprehension step');
      const [pred, then, other] = step.children;
      const p = need(this.compile(pred), 'bool');
      const isValue = (x: AstView, v: unknown): boolean => x.op === 'value' && x.value === v;
      if (isValue(then, true) && isValue(other, false) && isValue(init, true)) return { code: `${items}.every((${name}) => ${p})`, t: BOOL, sure: true };
      if (isValue(then, true) && isValue(other, false) && isValue(init, false)) return { code: `${items}.some((${name}) => ${p})`, t: BOOL, sure: true };
      if (then.op === 'accuPush' && then.children[0]?.op === 'id' && then.children[0].value === c.iterVars[0] && other.op === 'accuValue' && init.op === 'list' && init.children.length === 0 && range.t.k === 'list') {
        return { code: `${items}.filter((${name}) => ${p})`, t: range.t };
      }
      return unsupported('comprehension kind');
    } finally {
      if (outer) this.scope.set(c.iterVars[0], outer);
      else this.scope.delete(c.iterVars[0]);
    }
  }
}

/**
 * The pattern as a JS RegExp source when it means the same to JS as to RE2 on ASCII text: anchored
 * at both ends, built from literals, escaped punctuation, `\d`, classes of ASCII characters and
 * ranges, groups, `|`, the quantifiers `* + ? {n,m}` and `.` (written `[^\n]`: RE2's `.` matches
 * `\r`, JS's does not); no `\s`, `\w`, POSIX classes, flags or lookaround (their meanings differ).
 * Null otherwise.
 */
export function asciiRegExpSource(pattern: string): string | null {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return null;
  const literal = /[A-Za-z0-9_,:\/=@ -]/;
  let depth = 0;
  /** Positions of an unescaped `.` outside classes. */
  const dots: number[] = [];
  for (let i = 1; i < pattern.length - 1; i++) {
    const c = pattern[i];
    if (c === '.') dots.push(i);
    else if (c === '\\') {
      const e = pattern[++i];
      if (e === undefined || !/[.\[\]()\\|*+?{}^$d-]/.test(e)) return null;
    } else if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']' || pattern[j] === '[') return null;
      for (; j < pattern.length && pattern[j] !== ']'; j++) {
        const d = pattern[j];
        if (d === '\\') {
          if (!/[.\[\]\\^-]/.test(pattern[++j] ?? '')) return null;
        } else if (d === '[' || !/[\x20-\x7e]/.test(d)) return null;
      }
      if (j >= pattern.length) return null;
      i = j;
    } else if (c === '(') {
      if (pattern[i + 1] === '?') return null;
      depth++;
    } else if (c === ')') {
      if (--depth < 0) return null;
    } else if (c === '{') {
      const m = /^\{\d+(,\d*)?\}/.exec(pattern.slice(i));
      if (!m) return null;
      i += m[0].length - 1;
    } else if (!('|*+?'.includes(c) || literal.test(c))) return null;
  }
  if (depth !== 0) return null;
  try {
    new RegExp(pattern);
  } catch {
    return null;
  }
  let js = '';
  let from = 0;
  for (const at of dots) {
    js += pattern.slice(from, at) + '[^\\n]';
    from = at + 1;
  }
  return (js + pattern.slice(from)).replace(/\//g, '\\/');
}

/** Two types whose values compare as the same kind of CEL value (never dyn). */
function sameKind(a: T, b: T): boolean {
  if (a.k === 'dyn' || b.k === 'dyn') return false;
  if (a.k === 'literalList' || b.k === 'literalList') {
    const other = a.k === 'literalList' ? b : a;
    const lit = (a.k === 'literalList' ? a : b) as { k: 'literalList'; items: Prim | null };
    return other.k === 'list' && lit.items === null; // a list against `[]`
  }
  if (a.k !== b.k) return false;
  if (a.k === 'object' && b.k === 'object') return a.typeName === b.typeName;
  return true;
}

/**
 * The JavaScript of one rule, `(s, o) => <boolean expression>` over helpers `A`, or null when the
 * rule is outside the subset (optionalOldSelf rules included: oldSelf is an optional there).
 */
export function compileCelRuleToJs(rule: ValidationRule, scope: Schema, definitions: Record<string, Schema>): string | null {
  if (rule.optionalOldSelf === true || typeof rule.rule !== 'string') return null;
  const { root } = buildShapes(scope, { definitions, isResource: defaultIsResource });
  let view: AstView;
  try {
    view = new CelEnvironment({ variables: { self: 'dyn', oldSelf: 'dyn' } }).compile(rule.rule).view();
  } catch {
    return null;
  }
  const vars = new Map<string, Compiled>([['self', { code: 's', t: root }], ['oldSelf', { code: 'o', t: root }]]);
  try {
    const body = new RuleCompiler(vars).compile(view);
    if (prim(body.t) !== 'bool') return null;
    return `(s: any, o: any): boolean => ${body.code}`;
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}
