// Test helper: the spec's named shapes from the generated definitions.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Schema } from '../schema/types.ts';

const raw = JSON.parse(readFileSync(fileURLToPath(new URL('../../out/validators/definitions.json', import.meta.url)), 'utf8')) as
  | { shapes: Record<string, Schema> }
  | Record<string, Schema>;

/** Every shape by name (accepts both `{shapes: {...}}` and a bare map). */
export const defs: Record<string, Schema> = 'shapes' in raw && typeof raw.shapes === 'object' && !('type' in raw.shapes) ? (raw.shapes as Record<string, Schema>) : (raw as Record<string, Schema>);

export function kind(name: string): Schema {
  const s = defs[name];
  if (!s) throw new Error(`no shape ${name} in definitions.json`);
  return s;
}
