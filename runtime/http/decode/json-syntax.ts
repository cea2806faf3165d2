// The first syntax error of a JSON text, worded as Go's encoding/json scanner words it (which the
// apiserver returns), found by one iterative pass with an explicit stack: never recursion, so any
// depth is safe. It also enforces upstream's nesting limit (`exceeded max depth`). Used on the slow
// path only: when JSON.parse fails, or when the fast structure scan saw more than the limit.

import { MAX_NESTING_DEPTH } from './limits.ts';

export interface JsonSyntaxError {
  /** Go's wording without the position, e.g. `invalid character '}' looking for beginning of value`. */
  message: string;
  /** Index in the text of the offending character (the text's length for an unexpected end). */
  offset: number;
  failure: 'syntax' | 'depth';
}

const enum S {
  BeginValue,
  BeginKeyOrEmpty,
  BeginKey,
  EndValue,
  EndTop,
  InString,
  InStringEsc,
  InStringEscU,
  Neg,
  Zero,
  Digits,
  Dot,
  DotDigits,
  Exp,
  ExpSign,
  ExpDigits,
  Literal,
}

const enum P {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Characters safe to show: JSON's own punctuation and control characters, never a value's letters or digits. */
const SHOWN = new Set(['{', '}', '[', ']', ':', ',', '"', '\\']);

/** Go's `invalid character 'c' <context>`, naming the character only when it cannot be a value's content. */
function invalidCharacter(c: number, context: string): string {
  const ch = String.fromCharCode(c);
  if (SHOWN.has(ch)) return `invalid character '${ch === '\\' ? '\\\\' : ch}' ${context}`;
  if (c < 0x20) return `invalid character '${JSON.stringify(ch).slice(1, -1)}' ${context}`;
  return `invalid character ${context}`;
}

/** Returns the first syntax error of `text`, or undefined when it is one valid JSON value. */
export function findJsonSyntaxError(text: string, maxDepth = MAX_NESTING_DEPTH): JsonSyntaxError | undefined {
  const stack: P[] = [];
  let state: S = S.BeginValue;
  let literal = '';
  let literalAt = 0;
  let hexLeft = 0;
  const fail = (i: number, c: number, context: string): JsonSyntaxError => ({ message: invalidCharacter(c, context), offset: i, failure: 'syntax' });
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    // The end of input is a space: it completes a number or a top-level value, nothing else.
    const atEnd = i === n;
    const c = atEnd ? 0x20 : text.charCodeAt(i);
    for (;;) {
      // At the end only a complete number or value can still finish; anything else is cut short.
      if (atEnd && state !== S.Zero && state !== S.Digits && state !== S.DotDigits && state !== S.ExpDigits && state !== S.EndValue && state !== S.EndTop) break;
      switch (state) {
        case S.BeginValue:
        case S.BeginKeyOrEmpty:
        case S.BeginKey: {
          if (isSpace(c)) break;
          if (state !== S.BeginValue) {
            if (c === 0x7d && state === S.BeginKeyOrEmpty) {
              stack.pop();
              state = S.EndValue;
              break;
            }
            if (c !== 0x22) return fail(i, c, 'looking for beginning of object key string');
            state = S.InString;
            break;
          }
          if (c === 0x7b || c === 0x5b) {
            stack.push(c === 0x7b ? P.ObjectKey : P.ArrayValue);
            if (stack.length > maxDepth) return { message: invalidCharacter(c, 'exceeded max depth'), offset: i, failure: 'depth' };
            if (c === 0x7b) state = S.BeginKeyOrEmpty;
            else {
              // `[]` is legal: an immediate `]` closes the array.
              let j = i + 1;
              while (j < n && isSpace(text.charCodeAt(j))) j++;
              if (j < n && text.charCodeAt(j) === 0x5d) {
                stack.pop();
                i = j;
                state = S.EndValue;
              }
            }
            break;
          }
          if (c === 0x22) state = S.InString;
          else if (c === 0x2d) state = S.Neg;
          else if (c === 0x30) state = S.Zero;
          else if (c >= 0x31 && c <= 0x39) state = S.Digits;
          else if (c === 0x74 || c === 0x66 || c === 0x6e) {
            literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
            literalAt = 1;
            state = S.Literal;
          } else return fail(i, c, 'looking for beginning of value');
          break;
        }
        case S.InString:
          if (c === 0x22) state = S.EndValue;
          else if (c === 0x5c) state = S.InStringEsc;
          else if (c < 0x20) return fail(i, c, 'in string literal');
          break;
        case S.InStringEsc:
          if (c === 0x75) {
            hexLeft = 4;
            state = S.InStringEscU;
          } else if ('"\\/bfnrt'.includes(String.fromCharCode(c))) state = S.InString;
          else return fail(i, c, 'in string escape code');
          break;
        case S.InStringEscU:
          if (!isHex(c)) return fail(i, c, 'in \\u hexadecimal character escape');
          if (--hexLeft === 0) state = S.InString;
          break;
        case S.Neg:
          if (c === 0x30) state = S.Zero;
          else if (c >= 0x31 && c <= 0x39) state = S.Digits;
          else return fail(i, c, 'in numeric literal');
          break;
        case S.Digits:
          if (isDigit(c)) break;
        // falls through: after the integer part, the same as after a leading 0
        case S.Zero:
          if (c === 0x2e) state = S.Dot;
          else if (c === 0x65 || c === 0x45) state = S.Exp;
          else {
            state = S.EndValue;
            continue;
          }
          break;
        case S.Dot:
          if (isDigit(c)) state = S.DotDigits;
          else return fail(i, c, 'after decimal point in numeric literal');
          break;
        case S.DotDigits:
          if (isDigit(c)) break;
          if (c === 0x65 || c === 0x45) state = S.Exp;
          else {
            state = S.EndValue;
            continue;
          }
          break;
        case S.Exp:
          if (c === 0x2b || c === 0x2d) {
            state = S.ExpSign;
            break;
          }
        // falls through: a digit right after the `e`
        case S.ExpSign:
          if (isDigit(c)) state = S.ExpDigits;
          else return fail(i, c, 'in exponent of numeric literal');
          break;
        case S.ExpDigits:
          if (isDigit(c)) break;
          state = S.EndValue;
          continue;
        case S.Literal:
          if (c !== literal.charCodeAt(literalAt)) return fail(i, c, `in literal ${literal} (expecting '${literal[literalAt]}')`);
          if (++literalAt === literal.length) state = S.EndValue;
          break;
        case S.EndValue: {
          if (stack.length === 0) {
            state = S.EndTop;
            continue;
          }
          if (isSpace(c)) break;
          const top = stack[stack.length - 1];
          if (top === P.ObjectKey) {
            if (c === 0x3a) {
              stack[stack.length - 1] = P.ObjectValue;
              state = S.BeginValue;
              break;
            }
            return fail(i, c, 'after object key');
          }
          if (top === P.ObjectValue) {
            if (c === 0x2c) {
              stack[stack.length - 1] = P.ObjectKey;
              state = S.BeginKey;
              break;
            }
            if (c === 0x7d) {
              stack.pop();
              break;
            }
            return fail(i, c, 'after object key:value pair');
          }
          if (c === 0x2c) {
            state = S.BeginValue;
            break;
          }
          if (c === 0x5d) {
            stack.pop();
            break;
          }
          return fail(i, c, 'after array element');
        }
        case S.EndTop:
          if (!isSpace(c)) return fail(i, c, 'after top-level value');
          break;
      }
      break;
    }
    if (atEnd) {
      if (state === S.EndTop) return undefined;
      return { message: 'unexpected end of JSON input', offset: n, failure: 'syntax' };
    }
  }
  return undefined;
}
