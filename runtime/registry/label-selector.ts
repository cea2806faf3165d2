// Label selectors as upstream parses them (apimachinery labels/selector.go): comma-separated
// requirements, ANDed: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>n`, `k<n`.
// `!=` and `notin` also match objects that lack the key.

import { isQualifiedName, isValidLabelValue } from '../schema/syntax.ts';

export type LabelOperator = 'exists' | '!' | '=' | '==' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

export class LabelSelector {
  /** Requirements the key must be present for (=, ==, in, exists, gt, lt), with their values as a set. */
  private readonly present: readonly { r: LabelRequirement; values: ReadonlySet<string> }[];
  /**
   * Requirements an absent key satisfies (!=, notin, !), by key: an object is checked against those of
   * its own (few) labels only, so a selector of many such requirements costs nothing per object.
   */
  private readonly absentOkByKey: ReadonlyMap<string, { r: LabelRequirement; values: ReadonlySet<string> }[]>;

  constructor(readonly requirements: readonly LabelRequirement[]) {
    const present: { r: LabelRequirement; values: ReadonlySet<string> }[] = [];
    const absentOk = new Map<string, { r: LabelRequirement; values: ReadonlySet<string> }[]>();
    for (const r of requirements) {
      const entry = { r, values: new Set(r.values) };
      if (r.operator === '!=' || r.operator === 'notin' || r.operator === '!') {
        const list = absentOk.get(r.key);
        if (list) list.push(entry);
        else absentOk.set(r.key, [entry]);
      } else present.push(entry);
    }
    this.present = present;
    this.absentOkByKey = absentOk;
  }

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {};
    for (const { r, values } of this.present) {
      if (!Object.prototype.hasOwnProperty.call(l, r.key) || !presentMatches(r, values, l[r.key])) return false;
    }
    if (this.absentOkByKey.size === 0) return true;
    for (const k in l) {
      if (!Object.prototype.hasOwnProperty.call(l, k)) continue;
      const reqs = this.absentOkByKey.get(k);
      if (reqs) for (const { r, values } of reqs) if (r.operator === '!' || values.has(l[k])) return false;
    }
    return true;
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

/** A requirement whose key the object has, against the label's value. */
function presentMatches(r: LabelRequirement, values: ReadonlySet<string>, v: string): boolean {
  switch (r.operator) {
    case 'exists':
      return true;
    case 'gt':
    case 'lt': {
      if (!/^[+-]?\d+$/.test(v)) return false;
      const have = BigInt(v);
      const want = BigInt(r.values[0]);
      return r.operator === 'gt' ? have > want : have < want;
    }
    default:
      return values.has(v);
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

// ---- lexer ----
type Tok =
  | { t: 'id'; v: string }
  | { t: 'in' }
  | { t: 'notin' }
  | { t: '!' }
  | { t: '=' }
  | { t: '==' }
  | { t: '!=' }
  | { t: '>' }
  | { t: '<' }
  | { t: '(' }
  | { t: ')' }
  | { t: ',' }
  | { t: 'end' };

const SPECIAL = new Set(['!', '=', '>', '<', '(', ')', ',']);

function lit(tok: Tok): string {
  switch (tok.t) {
    case 'id':
      return tok.v;
    case 'end':
      return '';
    default:
      return tok.t;
  }
}

function lex(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = s.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        out.push({ t: two });
        i += 2;
        continue;
      }
      out.push({ t: c as '!' | '=' | '>' | '<' | '(' | ')' | ',' });
      i++;
      continue;
    }
    let j = i;
    while (j < s.length && !SPECIAL.has(s[j]) && !' \t\n\r'.includes(s[j])) j++;
    const word = s.slice(i, j);
    out.push(word === 'in' ? { t: 'in' } : word === 'notin' ? { t: 'notin' } : { t: 'id', v: word });
    i = j;
  }
  out.push({ t: 'end' });
  return out;
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

/** Parses a label selector; the empty string selects everything. Throws SelectorParseError with upstream's texts. */
export function parseLabelSelector(selector: string): LabelSelector {
  const toks = lex(selector);
  let p = 0;
  const peek = (): Tok => toks[p];
  const next = (): Tok => toks[p++];
  const reqs: LabelRequirement[] = [];
  if (peek().t === 'end') return new LabelSelector([]);
  for (;;) {
    let tok = next();
    let operator: LabelOperator | undefined;
    if (tok.t === '!') {
      operator = '!';
      tok = next();
    }
    // In key position `in`/`notin` are plain identifiers.
    if (tok.t !== 'id' && tok.t !== 'in' && tok.t !== 'notin') {
      throw new SelectorParseError(`found '${lit(tok)}', expected: !, identifier, or 'end of string'`);
    }
    const key = tok.t === 'id' ? tok.v : tok.t;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) throw new SelectorParseError(`unable to parse requirement: key: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    let values: string[] = [];
    if (operator === '!') {
      const after = peek();
      if (after.t !== ',' && after.t !== 'end') throw new SelectorParseError(`found '${lit(after)}', expected: ',' or 'end of string'`);
    } else {
      const opTok = peek();
      if (opTok.t === ',' || opTok.t === 'end') {
        operator = 'exists';
      } else {
        next();
        switch (opTok.t) {
          case 'in':
          case 'notin':
            operator = opTok.t;
            values = parseSetValues();
            break;
          case '=':
          case '==':
          case '!=':
            operator = opTok.t;
            values = [parseExactValue()];
            break;
          case '>':
          case '<': {
            operator = opTok.t === '>' ? 'gt' : 'lt';
            const v = parseExactValue();
            if (!/^[+-]?\d+$/.test(v)) {
              throw new SelectorParseError(`unable to parse requirement: values[0]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
            }
            values = [v];
            break;
          }
          default:
            throw new SelectorParseError(`found '${lit(opTok)}', expected: ${BINARY_OPERATORS}`);
        }
        if (operator !== 'gt' && operator !== 'lt') {
          values.forEach((v, i) => {
            const errs = isValidLabelValue(v);
            if (errs.length) throw new SelectorParseError(`unable to parse requirement: values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${errs.join('; ')}`);
          });
        }
      }
    }
    reqs.push({ key, operator: operator as LabelOperator, values });
    const sep = next();
    if (sep.t === 'end') break;
    if (sep.t !== ',') throw new SelectorParseError(`found '${lit(sep)}', expected: ',' or 'end of string'`);
    if (peek().t === 'end') throw new SelectorParseError(`found '', expected: identifier after ','`);
  }
  // Upstream sorts requirements by key.
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return new LabelSelector(reqs);

  function parseExactValue(): string {
    const t = peek();
    if (t.t === 'end' || t.t === ',') return '';
    if (t.t === 'id' || t.t === 'in' || t.t === 'notin') {
      next();
      return t.t === 'id' ? t.v : t.t;
    }
    throw new SelectorParseError(`found '${lit(t)}', expected: identifier`);
  }

  function parseSetValues(): string[] {
    const open = next();
    if (open.t !== '(') throw new SelectorParseError(`found '${lit(open)}', expected: '('`);
    const set: string[] = [];
    if (peek().t === ')') {
      next();
      return [''];
    }
    for (;;) {
      const t = peek();
      if (t.t === 'id' || t.t === 'in' || t.t === 'notin') {
        next();
        set.push(t.t === 'id' ? t.v : t.t);
        const after = next();
        if (after.t === ')') break;
        if (after.t !== ',') throw new SelectorParseError(`found '${lit(after)}', expected: ',', or identifier`);
        if (peek().t === ')') {
          next();
          set.push('');
          break;
        }
      } else if (t.t === ',') {
        next();
        set.push('');
        if (peek().t === ')') {
          next();
          set.push('');
          break;
        }
      } else {
        throw new SelectorParseError(`found '${lit(t)}', expected: ',', or identifier`);
      }
    }
    return [...new Set(set)].sort();
  }
}
