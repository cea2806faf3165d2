// Projects a spec schema into a published OpenAPI schema: qualified $refs, rule descriptions,
// and the differences between OpenAPI 3.0 and Swagger 2.0.
import type { Schema, RuleSpec } from '../../runtime/schema/types.ts';
import type { Model } from '../model/model.ts';
import { describeRule } from '../rules.ts';
import { qualifiedName } from './qualified-names.ts';

export type Dialect = 'v3' | 'v2';

type Out = Record<string, unknown>;

export function projectSchema(model: Model, schema: Schema, dialect: Dialect): Out {
  const refBase = dialect === 'v3' ? '#/components/schemas/' : '#/definitions/';
  const visit = (node: Schema): Out => {
    const out: Out = {};
    for (const [key, value] of Object.entries(node)) {
      if (value === undefined) continue;
      switch (key) {
        case '$ref':
          break;
        case 'properties':
          out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, visit(v)]));
          break;
        case 'items':
        case 'not':
          out[key] = visit(value as Schema);
          break;
        case 'additionalProperties':
          out[key] = typeof value === 'boolean' ? value : visit(value as Schema);
          break;
        case 'allOf':
        case 'anyOf':
        case 'oneOf':
          out[key] = (value as Schema[]).map(visit);
          break;
        case 'nullable':
        case 'deprecated':
          if (dialect === 'v3') out[key] = value;
          else if (key === 'nullable') out['x-nullable'] = value;
          break;
        default:
          out[key] = value;
      }
    }
    if (node['x-cluster-deprecated'] && dialect === 'v3') out.deprecated = true;
    const rules = node['x-cluster-rules'];
    if (rules?.length) {
      // Notes for implementers (upstream's error wording, how the server does it) stay out of the API documents.
      const text = rules
        .filter((r: RuleSpec) => !(r.rule === 'note' && r.audience === 'implementers'))
        .map((r: RuleSpec) => describeRule(r))
        .filter(Boolean)
        .join(' ');
      if (text) out.description = out.description ? `${String(out.description)} ${text}` : text;
    }
    if (node.$ref) {
      const ref = `${refBase}${qualifiedName(model, node.$ref.replace('#/components/schemas/', ''))}`;
      // OpenAPI ignores siblings of $ref; upstream wraps the reference in allOf to keep them.
      return Object.keys(out).length ? { allOf: [{ $ref: ref }], ...out } : { $ref: ref };
    }
    return out;
  };
  return visit(schema);
}
