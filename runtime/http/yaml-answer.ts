// YAML answers that YAML 1.1 readers read back as they were sent. kubectl and client-go read YAML with
// go-yaml v2 (through sigs.k8s.io/yaml), a YAML 1.1 reader: unquoted `on`, `yes`, `y`, `~`, `0x1F`,
// `1_000` or `2026-01-01` come back as booleans, null, numbers or timestamps. The library's YAML 1.1
// mode quotes every string such a reader would resolve to another type, as go-yaml v2's encoder does;
// one extra tag declares the plain forms go-yaml v2 resolves beyond YAML 1.1 itself.

import { stringify, type ScalarTag, type Tags } from 'yaml';

/**
 * Strings go-yaml v2 reads as non-strings beyond YAML 1.1's own types: integers with Go's radix
 * prefixes (it removes `_` and parses with strconv.ParseInt base 0, which also takes `0o17`, `0X1F`,
 * `0B1`), and the merge key `<<`. Declared only so the library quotes them: it identifies no value.
 */
const GO_YAML_V2_NON_STRINGS: ScalarTag = {
  tag: 'tag:cluster.io,2026:go-yaml-v2-non-string',
  default: true,
  identify: () => false,
  test: /^(?:<<|[-+]?_*0_*(?:[xX][_0-9a-fA-F]*[0-9a-fA-F][_0-9a-fA-F]*|[oO][_0-7]*[0-7][_0-7]*|[bB][_01]*[01][_01]*))$/,
  resolve: (source: string) => source,
};

/**
 * YAML 1.1's tags without the merge tag (which would write the string `<<` as a merge key: JSON has
 * none), plus the go-yaml v2 forms.
 */
function answerTags(tags: Tags): Tags {
  return [...tags.filter((t) => (typeof t === 'string' ? t !== 'merge' : t.tag !== 'tag:yaml.org,2002:merge')), GO_YAML_V2_NON_STRINGS];
}

/** A JSON value as a YAML document (no aliases, no folding). */
export function toYaml(value: unknown): string {
  return stringify(value, { version: '1.1', customTags: answerTags, aliasDuplicateObjects: false, lineWidth: 0 });
}
