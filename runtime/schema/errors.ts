// Upstream-shaped field errors (apimachinery util/validation/field, 1.34+ value rendering).
import type { FieldError, FieldErrorReason } from './types.ts';

/** Go's %v for a float64 (strconv 'g', shortest digits: exponent form when exp < -4 or exp >= 6). */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const m = /e([+-]\d+)$/.exec(Math.abs(n).toExponential());
  const e = m ? Number(m[1]) : 0;
  if (e < -4 || e >= 6) {
    const [mant, ex] = n.toExponential().split('e');
    const en = Number(ex);
    const abs = Math.abs(en);
    return `${mant}e${en < 0 ? '-' : '+'}${abs < 10 ? '0' + abs : String(abs)}`;
  }
  return String(n);
}

/** A nil Go map or slice as a bad value: json.Marshal prints it as a bare `null`. */
export const NIL_COLLECTION: unique symbol = Symbol('nil map or slice');

/**
 * Renders a bad value as upstream does: strings Go-quoted, numbers and bools bare, else JSON. An
 * absent value is a nil interface (`"null"`); NIL_COLLECTION a typed nil map or slice (`null`).
 * Unbounded: messages show a value through valuePart, which omits one too long to show.
 */
export function formatValue(v: unknown): string {
  if (v === NIL_COLLECTION) return 'null';
  if (v === undefined || v === null) return '"null"';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : goFloat(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return String(v);
    default:
      try {
        return JSON.stringify(v) ?? '"null"';
      } catch {
        // a cyclic value, or one nested deeper than the stack
        return String(v);
      }
  }
}

/**
 * The longest rendering of a bad value a message shows, in characters. Upstream shows every value
 * (its request bodies stop at 3 MiB) and leaves out only what it marks omitted (field.TooLong's
 * value, field.TooMany's unknown count); a validator given any value would otherwise echo a 10 MB
 * string into its message. Far above the longest value upstream's messages show in the fixtures
 * (a CRD's versions list, about 1 KB).
 */
export const MAX_SHOWN_VALUE_CHARS = 16 * 1024;

/**
 * `: <value>` as a message shows a bad value after the reason's words (`Invalid value: "x"`), or ''
 * for a value whose rendering is longer than MAX_SHOWN_VALUE_CHARS: upstream's ErrorBody prints an
 * omitted value so, the reason's words alone (`Invalid value: <detail>`).
 */
export function valuePart(v: unknown): string {
  // a string's length bounds its quoted form from below: no 10 MB copy to measure it
  if (typeof v === 'string' && v.length > MAX_SHOWN_VALUE_CHARS) return '';
  const shown = formatValue(v);
  return shown.length > MAX_SHOWN_VALUE_CHARS ? '' : `: ${shown}`;
}

function mk(field: string, reason: FieldErrorReason, message: string): FieldError {
  return { field, reason, message };
}

export const fieldErr = {
  required(field: string, detail = ''): FieldError {
    return mk(field, 'FieldValueRequired', detail ? `Required value: ${detail}` : 'Required value');
  },
  invalid(field: string, value: unknown, detail = ''): FieldError {
    return mk(field, 'FieldValueInvalid', `Invalid value${valuePart(value)}${detail ? ': ' + detail : ''}`);
  },
  typeInvalid(field: string, value: unknown, detail = ''): FieldError {
    return mk(field, 'FieldValueTypeInvalid', `Invalid value${valuePart(value)}${detail ? ': ' + detail : ''}`);
  },
  notSupported(field: string, value: unknown, supported: string[]): FieldError {
    let msg = `Unsupported value${valuePart(value)}`;
    if (supported.length) msg += ': supported values: ' + supported.map((s) => JSON.stringify(s)).join(', ');
    return mk(field, 'FieldValueNotSupported', msg);
  },
  forbidden(field: string, detail = ''): FieldError {
    return mk(field, 'FieldValueForbidden', detail ? `Forbidden: ${detail}` : 'Forbidden');
  },
  tooLong(field: string, max: number): FieldError {
    const detail = max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
    return mk(field, 'FieldValueTooLong', `Too long: ${detail}`);
  },
  tooMany(field: string, actual: number, max: number): FieldError {
    const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
    return mk(field, 'FieldValueTooMany', actual >= 0 ? `Too many: ${actual}: ${detail}` : `Too many: ${detail}`);
  },
  duplicate(field: string, value: unknown): FieldError {
    return mk(field, 'FieldValueDuplicate', `Duplicate value${valuePart(value)}`);
  },
  notFound(field: string, value: unknown): FieldError {
    return mk(field, 'FieldValueNotFound', `Not found${valuePart(value)}`);
  },
  internal(field: string, detail: string): FieldError {
    return mk(field, 'InternalError', `Internal error: ${detail}`);
  },
  /** An error of the given reason with a free detail (CEL results, declarative rules). */
  ofReason(field: string, reason: FieldErrorReason, value: unknown, detail: string): FieldError {
    switch (reason) {
      case 'FieldValueRequired': return fieldErr.required(field, detail);
      case 'FieldValueForbidden': return fieldErr.forbidden(field, detail);
      case 'FieldValueDuplicate': return fieldErr.duplicate(field, value);
      case 'FieldValueNotSupported': return { field, reason, message: `Unsupported value${valuePart(value)}${detail ? `: ${detail}` : ''}` };
      case 'FieldValueNotFound': return fieldErr.notFound(field, value);
      case 'FieldValueTypeInvalid': return fieldErr.typeInvalid(field, value, detail);
      case 'InternalError': return fieldErr.internal(field, detail);
      default: return fieldErr.invalid(field, value, detail);
    }
  },
};

/** Joins a path and a child field name. */
export function childPath(base: string, name: string): string {
  return base === '' ? name : `${base}.${name}`;
}
export function indexPath(base: string, i: number): string {
  return `${base}[${i}]`;
}
export function keyPath(base: string, k: string): string {
  return `${base}[${k}]`;
}

/** A bound as kube-openapi prints it: int64 for integer data, Go %v float otherwise. */
export function fmtBound(bound: number, intData: boolean): string {
  return intData ? String(Math.trunc(bound)) : goFloat(bound);
}
