// The message each syntax reports for a typical bad value (used where a static message is needed: CEL).
import { SYNTAX_CHECKS, type SyntaxName } from '../syntax.ts';

const SAMPLES: Record<SyntaxName, string> = {
  dns1123Subdomain: '-', dns1123Label: '-', dns1035Label: '-', qualifiedName: '-', labelKey: '-', labelValue: '-',
  configMapKey: '$', relativePath: '/a', nonReservedPath: '..a', httpsUrl: 'http://a', nonEmptyKey: '', path: '..', pathSegment: '/',
};

export function syntaxMessage(name: SyntaxName): string {
  return SYNTAX_CHECKS[name](SAMPLES[name])[0] ?? 'invalid value';
}
