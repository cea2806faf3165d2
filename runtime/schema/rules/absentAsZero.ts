// `absentAsZero`: a property listed in `required` (the documents and upstream's OpenAPI say so)
// that upstream's validation nevertheless accepts when absent, because its Go type decodes an
// absent field as the zero value and the validation function accepts that value (CSINode spec and
// spec.drivers, a CSIDriver token request's audience). The property stays in `required` in the
// OpenAPI documents (as upstream publishes them); the validator does not report it missing, and the
// JSON Schemas and CRD bodies do not require it, so that they accept what the server accepts.
// Nothing is checked when it is present.
import type { RuleKind } from './types.ts';

export const absentAsZero: RuleKind = {
  kind: 'absentAsZero',
  checkParams(p) {
    if (typeof p.zero !== 'string' || p.zero.trim() === '') return '`zero` must say which value upstream validates instead (`""`, `[]`, `{}`)';
    return null;
  },
  compile() {
    return null;
  },
  toCel() {
    return { rule: null, reason: 'a CRD schema enforces `required` itself' };
  },
  describe(p) {
    return `If omitted, it is read as ${String(p.zero)}.`;
  },
};
