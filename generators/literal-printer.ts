// Prints a JSON-like value as a TypeScript expression in the form prettier gives it (printWidth 120,
// single quotes, trailing commas), so that generated modules made of data need no prettier run.
// Only what prettier prints the same for every input is handled; anything else throws
// UnsupportedLiteral and the caller leaves the file to prettier.
import { PRETTIER_OPTIONS } from './format-pool.ts';

/** Code to print as it is (a reference such as `handlers.get`). */
export class RawCode {
  constructor(readonly code: string) {}
}

export type Literal = string | number | boolean | null | RawCode | readonly Literal[] | { readonly [key: string]: Literal | undefined };

export class UnsupportedLiteral extends Error {}

const WIDTH = PRETTIER_OPTIONS.printWidth;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A string literal as prettier writes it: single quotes unless the text holds more single than double quotes. */
export function stringLiteral(s: string): string {
  const json = JSON.stringify(s).slice(1, -1);
  const singles = s.split("'").length - 1;
  const doubles = s.split('"').length - 1;
  if (singles > doubles) return `"${json}"`;
  return `'${json.replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

const isObject = (v: Literal): v is { readonly [key: string]: Literal | undefined } =>
  typeof v === 'object' && v !== null && !(v instanceof RawCode) && !Array.isArray(v);

function entries(o: { readonly [key: string]: Literal | undefined }): Array<[string, Literal]> {
  return Object.entries(o).filter((e): e is [string, Literal] => e[1] !== undefined);
}

function key(k: string): string {
  // prettier keeps every key quoted when one needs quotes; data here has identifier keys only
  if (!IDENTIFIER.test(k)) throw new UnsupportedLiteral(`key ${JSON.stringify(k)} needs quotes`);
  return k;
}

function flat(v: Literal): string {
  if (v instanceof RawCode) return v.code;
  if (typeof v === 'string') return stringLiteral(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || Object.is(v, -0)) throw new UnsupportedLiteral(`number ${v}`);
    return String(v);
  }
  if (typeof v === 'boolean' || v === null) return String(v);
  if (Array.isArray(v)) return v.length ? `[${v.map(flat).join(', ')}]` : '[]';
  const props = entries(v as { readonly [key: string]: Literal | undefined });
  return props.length ? `{ ${props.map(([k, x]) => `${key(k)}: ${flat(x)}`).join(', ')} }` : '{}';
}

/** prettier breaks an array of two or more objects (or arrays) of more than one entry each, fits or not. */
function alwaysBreaks(list: readonly Literal[]): boolean {
  if (list.length < 2) return false;
  const kind = Array.isArray(list[0]) ? 'array' : 'object';
  return list.every((x) =>
    kind === 'array' ? Array.isArray(x) && x.length > 1 : isObject(x) && entries(x).length > 1,
  );
}

/** A forced break also breaks every enclosing object and array (prettier propagates it). */
function mustBreak(v: Literal): boolean {
  if (Array.isArray(v)) return alwaysBreaks(v) || v.some(mustBreak);
  return isObject(v) && entries(v).some(([, x]) => mustBreak(x));
}

/**
 * `v` printed at `indent` (spaces) after `column` characters of its line, followed by `tail`
 * characters (`,` or `;`) before the line can end.
 */
export function printLiteral(v: Literal, indent: number, column: number, tail: number): string {
  const asFlat = flat(v);
  const forced = mustBreak(v);
  if (!forced && column + asFlat.length + tail <= WIDTH) return asFlat;
  if (!Array.isArray(v) && !isObject(v)) return asFlat; // nothing to break: prettier leaves it long
  const inner = ' '.repeat(indent + 2);
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === 'number')) throw new UnsupportedLiteral('prettier fills a long array of numbers');
    const items = v.map((x) => `${inner}${printLiteral(x, indent + 2, indent + 2, 1)},`);
    return `[\n${items.join('\n')}\n${' '.repeat(indent)}]`;
  }
  const props = entries(v as { readonly [key: string]: Literal | undefined }).map(([k, x]) => `${inner}${printProperty(k, x, indent + 2)},`);
  return `{\n${props.join('\n')}\n${' '.repeat(indent)}}`;
}

/**
 * One property of a broken object. A string too long for its line moves to the next one, indented,
 * unless the key is shorter than five characters (prettier's break-after-operator layout).
 */
function printProperty(k: string, x: Literal, indent: number): string {
  const head = `${key(k)}:`;
  if ((typeof x === 'string' || x instanceof RawCode) && head.length - 1 >= 5) {
    const text = flat(x);
    if (indent + head.length + 1 + text.length + 1 > WIDTH) return `${head}\n${' '.repeat(indent + 2)}${text}`;
  }
  return `${head} ${printLiteral(x, indent, indent + head.length + 1, 1)}`;
}

/** printLiteral, or undefined for data it does not handle (the caller writes it for prettier to format). */
export function tryPrintLiteral(v: Literal, indent: number, column: number, tail: number): string | undefined {
  try {
    return printLiteral(v, indent, column, tail);
  } catch (err) {
    if (err instanceof UnsupportedLiteral) return undefined;
    throw err;
  }
}
