// Optional entries in aggregate literals (`[a, ?b]`, `{?'k': v}`), part of cel-go's OptionalTypes()
// syntax that upstream enables for CRD rules. The engine's parser rejects them, so compile() rewrites
// such literals into calls of two helper functions before parsing:
//   [a, ?b, c]          -> ([a] + _optional_list_entry(b) + [c])
//   {'x': 1, ?'k': v}   -> _optional_map_entry({'x': 1}, 'k', v)
// Expressions without optional entries are returned unchanged (same positions in errors), apart from
// doubles written without an integer part (`.5` -> `0.5`) and raw bytes literals (`br'\d'` ->
// `b'\\d'`), which the engine's lexer also rejects.

export interface Tok {
  kind: 'ws' | 'str' | 'num' | 'id' | 'punct';
  text: string;
}

const PUNCT3 = ['...'];
const PUNCT2 = ['==', '!=', '<=', '>=', '&&', '||', '.?'];

export function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      let j = i;
      while (j < src.length && /\s/.test(src[j])) j++;
      out.push({ kind: 'ws', text: src.slice(i, j) });
      i = j;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      let j = src.indexOf('\n', i);
      if (j < 0) j = src.length;
      out.push({ kind: 'ws', text: src.slice(i, j) });
      i = j;
      continue;
    }
    // string and bytes literals, with r/b prefixes and triple quotes
    const m = /^([rRbB]{0,2})("""|'''|"|')/.exec(src.slice(i));
    if (m && (m[1] === '' || /^[rRbB]+$/.test(m[1]))) {
      const raw = /[rR]/.test(m[1]);
      const q = m[2];
      let j = i + m[0].length;
      while (j < src.length && !src.startsWith(q, j)) j += !raw && src[j] === '\\' ? 2 : 1;
      j = Math.min(src.length, j + q.length);
      out.push({ kind: 'str', text: src.slice(i, j) });
      i = j;
      continue;
    }
    if (c === '`') {
      // an escaped identifier (`a.\`b-c\``): one identifier token, backticks included
      const j = src.indexOf('`', i + 1);
      const end = j < 0 ? src.length : j + 1;
      out.push({ kind: 'id', text: src.slice(i, end) });
      i = end;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < src.length && /[A-Za-z0-9_]/.test(src[j])) j++;
      out.push({ kind: 'id', text: src.slice(i, j) });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) {
      let j = i;
      while (j < src.length && /[0-9A-Za-z_.]/.test(src[j])) j++;
      out.push({ kind: 'num', text: src.slice(i, j) });
      i = j;
      continue;
    }
    const p = PUNCT3.find((x) => src.startsWith(x, i)) ?? PUNCT2.find((x) => src.startsWith(x, i)) ?? c;
    out.push({ kind: 'punct', text: p });
    i += p.length;
  }
  return out;
}

const CLOSE: Record<string, string> = { '[': ']', '{': '}', '(': ')' };

export function isExprEnd(t: Tok | undefined): boolean {
  if (!t) return false;
  if (t.kind === 'id') return t.text !== 'in';
  if (t.kind === 'num' || t.kind === 'str') return true;
  return t.text === ')' || t.text === ']' || t.text === '}';
}

export function matching(toks: Tok[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    const t = toks[i].text;
    if (toks[i].kind !== 'punct') continue;
    if (t === '[' || t === '{' || t === '(') depth++;
    else if (t === ']' || t === '}' || t === ')') if (--depth === 0) return i;
  }
  return -1;
}

/** Splits tokens [from, to) at depth-0 commas. */
export function splitTop(toks: Tok[], from: number, to: number, sep: string): [number, number][] {
  const parts: [number, number][] = [];
  let depth = 0;
  let ternary = 0;
  let start = from;
  for (let i = from; i < to; i++) {
    const t = toks[i];
    if (t.kind !== 'punct') continue;
    if (t.text === '[' || t.text === '{' || t.text === '(') depth++;
    else if (t.text === ']' || t.text === '}' || t.text === ')') depth--;
    else if (depth === 0 && t.text === '?' && sep === ':' && i !== firstSignificant(toks, from, to)) ternary++;
    else if (depth === 0 && t.text === ':' && sep === ':' && ternary > 0) ternary--;
    else if (depth === 0 && t.text === sep) {
      parts.push([start, i]);
      start = i + 1;
      if (sep === ':') break;
    }
  }
  parts.push([start, to]);
  return parts;
}

export function firstSignificant(toks: Tok[], from: number, to: number): number {
  for (let i = from; i < to; i++) if (toks[i].kind !== 'ws') return i;
  return -1;
}

export function prevSignificant(toks: Tok[], i: number): Tok | undefined {
  for (let j = i - 1; j >= 0; j--) if (toks[j].kind !== 'ws') return toks[j];
  return undefined;
}

function render(toks: Tok[], from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const t = toks[i];
    const literal = t.kind === 'punct' && ((t.text === '[' && !isExprEnd(prevSignificant(toks, i))) || (t.text === '{' && prevSignificant(toks, i)?.kind !== 'id') || (t.text === '{' && prevSignificant(toks, i)?.text === 'in'));
    if (!literal) {
      out += t.text;
      continue;
    }
    const close = matching(toks, i);
    if (close < 0) {
      out += t.text;
      continue;
    }
    const entries = splitTop(toks, i + 1, close, ',').filter(([a, b]) => firstSignificant(toks, a, b) >= 0);
    const optional = entries.map(([a, b]) => toks[firstSignificant(toks, a, b)].text === '?');
    if (!optional.some(Boolean)) {
      out += t.text + render(toks, i + 1, close) + CLOSE[t.text];
    } else if (t.text === '[') {
      const parts: string[] = [];
      let plain: string[] = [];
      entries.forEach(([a, b], k) => {
        if (!optional[k]) return void plain.push(render(toks, a, b).trim());
        if (plain.length) parts.push(`[${plain.join(', ')}]`);
        plain = [];
        parts.push(`_optional_list_entry(${render(toks, firstSignificant(toks, a, b) + 1, b).trim()})`);
      });
      if (plain.length) parts.push(`[${plain.join(', ')}]`);
      out += `(${parts.join(' + ')})`;
    } else {
      const plain: string[] = [];
      const opt: [string, string][] = [];
      entries.forEach(([a, b], k) => {
        const start = optional[k] ? firstSignificant(toks, a, b) + 1 : a;
        const [kr, vr] = splitTop(toks, start, b, ':');
        const key = render(toks, kr[0], kr[1]).trim();
        const value = vr ? render(toks, vr[0], vr[1]).trim() : '';
        if (optional[k]) opt.push([key, value]);
        else plain.push(`${key}: ${value}`);
      });
      let expr = `{${plain.join(', ')}}`;
      for (const [k, v] of opt) expr = `_optional_map_entry(${expr}, ${k}, ${v})`;
      out += expr;
    }
    i = close;
  }
  return out;
}

/** Rewrites optional list/map entries into helper calls; returns the source unchanged when there are none. */
export function rewriteOptionalEntries(src: string): string {
  const rawBytes = /(^|[^\w])([bB][rR]|[rR][bB])['"]/.test(src);
  if (!src.includes('?') && !/(^|[^\w)\]}])\.\d/.test(src) && !rawBytes) return src;
  const toks = tokenize(src);
  // raw bytes literals (`br'\d'`), which the engine's lexer rejects, as the equivalent escaped bytes literal
  let rawBytesRewritten = false;
  for (const t of toks) {
    const m = t.kind === 'str' ? /^(?:[bB][rR]|[rR][bB])('''|"""|'|")([\s\S]*)\1$/.exec(t.text) : null;
    if (!m) continue;
    t.text = `b${m[1]}${m[2].replace(/\\/g, '\\\\')}${m[1]}`;
    rawBytesRewritten = true;
  }
  if (rawBytesRewritten && !src.includes('?') && !/(^|[^\w)\]}])\.\d/.test(src)) return toks.map((t) => t.text).join('');
  // CEL allows doubles with no integer part (`.5`); the engine's lexer does not: write them as `0.5`
  let leadingDot = false;
  toks.forEach((t, i) => {
    if (t.text === '.' && toks[i + 1]?.kind === 'num' && !isExprEnd(prevSignificant(toks, i)) && prevSignificant(toks, i)?.text !== '.') {
      t.text = '0.';
      leadingDot = true;
    }
  });
  if (leadingDot && !src.includes('?')) return toks.map((t) => t.text).join('');
  const has = toks.some((t, i) => t.text === '?' && ['[', '{', ','].includes(prevSignificant(toks, i)?.text ?? '') && !(prevSignificant(toks, i)?.text === '[' && isExprEnd(prevSignificant(toks, toks.lastIndexOf(prevSignificant(toks, i)!)))));
  if (!has) return toks.map((t) => t.text).join('');
  return render(toks, 0, toks.length);
}
