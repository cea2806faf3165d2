// `checkedByList`: marks a property of list items whose value (present or absent) a rule of the
// enclosing list checks, because the accepted values depend on the other items or on the old list
// (`by: ratchetedItemEnum`, a webhook's sideEffects). Its `enum` and `required` stay in the documents;
// the schema tree checks neither (checksEnumAndAbsence), and nothing is checked here.
import type { RuleKind } from './types.ts';

export const checkedByList: RuleKind = {
  kind: 'checkedByList',
  checksEnumAndAbsence: true,
  checkParams(p) {
    if (p.by !== 'ratchetedItemEnum') return '`by` must name the list rule that checks the property (ratchetedItemEnum)';
    return null;
  },
  compile() {
    return null;
  },
  toCel(p) {
    return { rule: null, reason: `the enclosing list's ${String(p.by)} rule checks it` };
  },
  describe() {
    return '';
  },
};
