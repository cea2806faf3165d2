// A schema's `$ref` chain followed to the schema it names, within a definitions map (OpenAPI
// `#/components/schemas/X` or JSON Schema `#/definitions/X`); at most 64 hops, so a cycle of refs
// ends. An unknown ref stays as it is.

import type { Schema } from './types.ts';

const REF = /#\/(?:components\/schemas|definitions)\/([^/]+)$/;

export function resolveSchemaRef(s: Schema, definitions: Record<string, Schema>): Schema {
  let cur = s;
  for (let i = 0; i < 64 && cur.$ref; i++) {
    const m = REF.exec(cur.$ref);
    if (!m || !Object.prototype.hasOwnProperty.call(definitions, m[1])) return cur;
    cur = definitions[m[1]];
  }
  return cur;
}
