import type { RuleKind } from './types.ts';

const ENFORCERS = ['strategy', 'controller', 'admission', 'node', 'client'];

export const note: RuleKind = {
  kind: 'note',
  checkParams(p) {
    if (typeof p.text !== 'string' || p.text.trim() === '') return '`text` is required';
    if (p.enforcedBy !== undefined && !ENFORCERS.includes(String(p.enforcedBy))) return `\`enforcedBy\` must be one of ${ENFORCERS.join(', ')}`;
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
