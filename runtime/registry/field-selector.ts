// Field selectors as upstream parses them (apimachinery fields/selector.go): `f=v`, `f==v`, `f!=v`,
// comma-separated and ANDed; `\` escapes `,`, `=`, `!` and `\` in values. Every resource supports
// metadata.name and metadata.namespace; a resource adds its own (descriptor.fieldSelectors).

import { SelectorParseError } from './label-selector.ts';

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export class FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /** `fields` maps each supported field to the object's value for it. */
  matches(fields: Record<string, string>): boolean {
    for (const r of this.requirements) {
      const v = fields[r.field] ?? '';
      if (r.operator === '=' ? v !== r.value : v === r.value) return false;
    }
    return true;
  }

  /** The value a `metadata.name=x` (or `name=x` alias) requirement pins, if any. */
  exactValue(field: string): string | undefined {
    for (const r of this.requirements) if (r.field === field && r.operator === '=') return r.value;
    return undefined;
  }
}

function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === ',') {
      terms.push(cur);
      cur = '';
    } else cur += c;
  }
  terms.push(cur);
  return terms;
}

function unescape(v: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    if (v[i] === '\\') {
      const n = v[i + 1];
      if (n === undefined || !'\\,=!'.includes(n)) throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
      out += n;
      i++;
    } else out += v[i];
  }
  return out;
}

/** Index of an unescaped operator in a term. */
function findOp(term: string, op: string): number {
  for (let i = 0; i + op.length <= term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    if (term.startsWith(op, i)) return i;
  }
  return -1;
}

/** Parses the syntax only; `checkFieldSelector` then checks the fields a resource supports. */
export function parseFieldSelector(selector: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  if (selector.trim() === '') return new FieldSelector([]);
  for (const term of splitTerms(selector)) {
    if (term === '') continue;
    let matched = false;
    for (const [op, norm] of [
      ['!=', '!='],
      ['==', '='],
      ['=', '='],
    ] as const) {
      const i = findOp(term, op);
      if (i >= 0) {
        reqs.push({ field: term.slice(0, i), operator: norm, value: unescape(term.slice(i + op.length)) });
        matched = true;
        break;
      }
    }
    if (!matched) throw new SelectorParseError(`invalid selector: '${selector}'; can't understand '${term}'`);
  }
  return new FieldSelector(reqs);
}

/**
 * Throws SelectorParseError with upstream's text for a field the resource does not support.
 * Types with their own field table (extra fields) say `field label not supported: <f>`; the others
 * say `"<f>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
export function checkFieldSelector(sel: FieldSelector, extraFields: readonly string[]): void {
  for (const r of sel.requirements) {
    if (r.field === 'metadata.name' || r.field === 'metadata.namespace' || extraFields.includes(r.field)) continue;
    if (extraFields.length > 0) throw new SelectorParseError(`field label not supported: ${r.field}`);
    throw new SelectorParseError(`"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
}

/** The field set of an object: metadata.name, metadata.namespace and each extra field by its dotted path. */
export function objectFields(obj: Record<string, unknown>, extraFields: readonly string[]): Record<string, string> {
  const meta = (obj.metadata ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {
    'metadata.name': typeof meta.name === 'string' ? meta.name : '',
    'metadata.namespace': typeof meta.namespace === 'string' ? meta.namespace : '',
  };
  for (const f of extraFields) {
    // `name` is the legacy alias of metadata.name (PVC).
    if (f === 'name') {
      out[f] = out['metadata.name'];
      continue;
    }
    let cur: unknown = obj;
    for (const part of f.split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
    out[f] = cur === undefined || cur === null ? '' : typeof cur === 'string' ? cur : String(cur);
  }
  return out;
}
