import type { RuleKind } from './types.ts';

const ENFORCERS = ['strategy', 'controller', 'admission', 'node', 'client'];
/** `users` (default): part of the API's description; `implementers`: how upstream words or places an error, how the server does it — kept out of the API documents, listed in out/rules/. */
const AUDIENCES = ['users', 'implementers'];

export const note: RuleKind = {
  kind: 'note',
  checkParams(p) {
    if (typeof p.text !== 'string' || p.text.trim() === '') return '`text` is required';
    if (p.enforcedBy !== undefined && !ENFORCERS.includes(String(p.enforcedBy))) return `\`enforcedBy\` must be one of ${ENFORCERS.join(', ')}`;
    if (p.audience !== undefined && !AUDIENCES.includes(String(p.audience))) return `\`audience\` must be one of ${AUDIENCES.join(', ')}`;
    return null;
  },
  compile() {
    return null;
  },
  toCel(p) {
    return { rule: null, reason: `a note, enforced by ${typeof p.enforcedBy === 'string' ? p.enforcedBy : 'something other than the API server'}` };
  },
  describe(p) {
    const t = String(p.text).trim();
    return /[.!?]$/.test(t) ? t : t + '.';
  },
};
