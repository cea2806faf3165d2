// Plain (unquoted) YAML scalars resolved under the YAML 1.2 core schema, as the yaml library
// resolves them by default: null, booleans, integers (decimal, 0o octal, 0x hex), floats, or the text.

const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** Characters a number can start with: any other text is a string without trying the patterns. */
const NUMERIC_START = /^[-+.0-9]/;

export function plainScalar(s: string): unknown {
  switch (s) {
    case '': case '~': case 'null': case 'Null': case 'NULL': return null;
    case 'true': case 'True': case 'TRUE': return true;
    case 'false': case 'False': case 'FALSE': return false;
    case '.inf': case '.Inf': case '.INF': case '+.inf': case '+.Inf': case '+.INF': return Infinity;
    case '-.inf': case '-.Inf': case '-.INF': return -Infinity;
    case '.nan': case '.NaN': case '.NAN': return NaN;
  }
  if (!NUMERIC_START.test(s)) return s;
  if (INT.test(s)) return parseInt(s, 10);
  if (OCT.test(s)) return parseInt(s.slice(2), 8);
  if (HEX.test(s)) return parseInt(s.slice(2), 16);
  if (FLOAT.test(s)) return parseFloat(s);
  return s;
}
