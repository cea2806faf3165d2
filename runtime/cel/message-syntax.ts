// Message literals and enum constants, which the engine's parser does not know, rewritten before
// parsing (like optional-syntax.ts):
//   google.protobuf.Int32Value{value: 1}   -> _message_literal('google.protobuf.Int32Value', 'value', 1)
//   T{?f: opt, `in`: true}                  -> _message_literal('pkg.T', '?f', opt, 'in', true)
//   GlobalEnum.GAZ                          -> 2
// Names resolve against the container as cel-go resolves them (`a.b.c` container, name `T`: a.b.c.T,
// a.b.T, a.T, T; a leading dot is absolute). A name that resolves to no declared type or enum
// constant is left as written, so expressions without message syntax are returned unchanged.

import { enumConstant, isMessageTypeName, mayNameEnumConstant } from './messages.ts';
import { firstSignificant, isExprEnd, matching, prevSignificant, splitTop, tokenize, type Tok } from './optional-syntax.ts';

/** Candidate full names of `name` written in `container`, most specific first. */
export function candidateNames(name: string, container: string, absolute: boolean): string[] {
  if (absolute || !container) return [name];
  const parts = container.split('.');
  const out: string[] = [];
  for (let i = parts.length; i > 0; i--) out.push(`${parts.slice(0, i).join('.')}.${name}`);
  out.push(name);
  return out;
}

function nextSignificant(toks: Tok[], i: number, to: number): number {
  for (let j = i; j < to; j++) if (toks[j].kind !== 'ws') return j;
  return -1;
}

function unquote(id: string): string {
  return id.startsWith('`') ? id.slice(1, -1) : id;
}

/** A qualified name starting at token i: its text, whether absolute, and the index after its last part. */
function qualifiedName(toks: Tok[], i: number, to: number): { name: string; absolute: boolean; end: number } | undefined {
  let absolute = false;
  let k = i;
  if (toks[k].text === '.') {
    const prev = prevSignificant(toks, k);
    if (isExprEnd(prev) || prev?.text === '.') return undefined;
    absolute = true;
    k = nextSignificant(toks, k + 1, to);
    if (k < 0 || toks[k].kind !== 'id') return undefined;
  } else {
    if (toks[k].kind !== 'id' || toks[k].text.startsWith('`')) return undefined;
    const prev = prevSignificant(toks, k);
    if (prev?.text === '.' || prev?.text === '.?') return undefined;
  }
  const parts = [toks[k].text];
  let end = k + 1;
  for (;;) {
    const dot = nextSignificant(toks, end, to);
    if (dot < 0 || toks[dot].text !== '.') break;
    const id = nextSignificant(toks, dot + 1, to);
    if (id < 0 || toks[id].kind !== 'id' || toks[id].text.startsWith('`')) break;
    parts.push(toks[id].text);
    end = id + 1;
  }
  return { name: parts.join('.'), absolute, end };
}

function render(toks: Tok[], from: number, to: number, container: string): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const t = toks[i];
    const q = t.kind === 'id' || t.text === '.' ? qualifiedName(toks, i, to) : undefined;
    if (!q) {
      out += t.text;
      continue;
    }
    const next = nextSignificant(toks, q.end, to);
    const candidates = candidateNames(q.name, container, q.absolute);
    if (next >= 0 && toks[next].text === '{') {
      const typeName = candidates.find(isMessageTypeName);
      const close = matching(toks, next);
      if (typeName && close >= 0 && close < to) {
        out += messageLiteral(toks, typeName, next, close, container);
        i = close;
        continue;
      }
    } else if (!(next >= 0 && toks[next].text === '(')) {
      const value = candidates.map(enumConstant).find((v) => v !== undefined);
      if (value !== undefined) {
        out += value < 0 ? `(${value})` : String(value);
        i = q.end - 1;
        continue;
      }
    }
    out += t.text;
  }
  return out;
}

function messageLiteral(toks: Tok[], typeName: string, open: number, close: number, container: string): string {
  const args = [`'${typeName}'`];
  for (const [a, b] of splitTop(toks, open + 1, close, ',')) {
    let k = firstSignificant(toks, a, b);
    if (k < 0) continue;
    let optional = '';
    if (toks[k].text === '?') {
      optional = '?';
      k = nextSignificant(toks, k + 1, b);
    }
    const colon = k < 0 ? -1 : nextSignificant(toks, k + 1, b);
    // anything but `name: value` is left for the parser to reject
    if (k < 0 || toks[k].kind !== 'id' || colon < 0 || toks[colon].text !== ':') return toks.slice(open, close + 1).map((t) => t.text).join('');
    // up to the value's last significant token: a trailing `// comment` would swallow the closing paren
    let end = b;
    while (end > colon + 1 && toks[end - 1].kind === 'ws') end--;
    args.push(`'${optional}${unquote(toks[k].text)}'`, render(toks, colon + 1, end, container).trim());
  }
  return `_message_literal(${args.join(', ')})`;
}

/** Rewrites message literals and enum constants; returns the source unchanged when there are none. */
export function rewriteMessageSyntax(src: string, container = ''): string {
  // fast path (every rule compiles through here): no `Name{` and no enum constant that could resolve
  if (!/[\w`]\s*\{/.test(src) && !mayNameEnumConstant(src)) return src;
  const toks = tokenize(src);
  const out = render(toks, 0, toks.length, container);
  return out === toks.map((t) => t.text).join('') ? src : out;
}
