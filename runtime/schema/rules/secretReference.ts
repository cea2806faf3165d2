// `secretReference`: a PersistentVolume source's Secret reference as upstream's
// validatePVSecretReference checks it: name Required, else a DNS-1123 subdomain; namespace
// Required, else a DNS-1123 label; each error at the reference's own field. Put on the property
// that holds the shared SecretReference shape, so other users of the shape are unaffected.
import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { isDNS1123Label, isDNS1123Subdomain, syntaxCel } from '../syntax.ts';
import { syntaxMessage } from './syntaxSample.ts';
import { isObject } from './util.ts';

export const secretReference: RuleKind = {
  kind: 'secretReference',
  checkParams(_p, node, env) {
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'object') return 'secretReference applies to an object with name and namespace';
    return null;
  },
  compile() {
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        const at = ctx.path();
        const name = typeof v.name === 'string' ? v.name : '';
        const namespace = typeof v.namespace === 'string' ? v.namespace : '';
        if (name === '') ctx.add(fieldErr.required(`${at}.name`));
        else for (const msg of isDNS1123Subdomain(name)) ctx.add(fieldErr.invalid(`${at}.name`, name, msg));
        if (namespace === '') ctx.add(fieldErr.required(`${at}.namespace`));
        else for (const msg of isDNS1123Label(namespace)) ctx.add(fieldErr.invalid(`${at}.namespace`, namespace, msg));
      },
    };
  },
  toCel() {
    const name = syntaxCel('dns1123Subdomain', 'self.name');
    const ns = syntaxCel('dns1123Label', 'self.__namespace__');
    return {
      rule: {
        rule: `has(self.name) && ${name} && has(self.__namespace__) && ${ns}`,
        message: `name and namespace are required; ${syntaxMessage('dns1123Subdomain')}; ${syntaxMessage('dns1123Label')}`,
      },
    };
  },
  describe() {
    return 'name (a DNS-1123 subdomain) and namespace (a DNS-1123 label) are both required.';
  },
};
