// The example project's fixtures (examples/widgets/fixtures): each file carries its expected verdict
// on its first line, `# expect: valid` or `# expect: invalid <field>, <field>...` (the fields the
// offline validators report). Files under updates/ hold two documents: the stored object, then the update.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { FieldError } from '../../runtime/schema/types.ts';
import { ROOT } from './harness.ts';

export const EXAMPLE = join(ROOT, 'examples', 'widgets');

export interface ExampleFixture {
  name: string;
  valid: boolean;
  /** Fields of the expected errors (invalid fixtures). */
  fields: string[];
  object: Record<string, unknown>;
  /** The stored object an update starts from. */
  old?: Record<string, unknown>;
}

function read(file: string, name: string): ExampleFixture {
  const text = readFileSync(file, 'utf8');
  const m = /^# expect: (valid|invalid)(?: (.+))?$/m.exec(text.split('\n')[0]);
  if (!m) throw new Error(`${file}: the first line must be "# expect: valid" or "# expect: invalid <fields>"`);
  const docs = parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);
  const object = docs[docs.length - 1];
  return { name, valid: m[1] === 'valid', fields: m[2] ? m[2].split(',').map((s) => s.trim()) : [], object, ...(docs.length > 1 ? { old: docs[0] } : {}) };
}

export interface ValidatorModule {
  applyDefaults(o: unknown): void;
  validate(o: unknown): FieldError[];
  validateUpdate(o: unknown, old: unknown): FieldError[];
}

/** The generated validator of an object's kind: a kind in two versions is generated per version (out/<version>/validators). */
export async function exampleValidator(object: Record<string, unknown>, out = join(EXAMPLE, 'out')): Promise<ValidatorModule> {
  const version = String(object.apiVersion).split('/').pop();
  const mod = (await import(join(out, String(version), 'validators', 'index.ts'))) as Record<string, ValidatorModule>;
  return mod[String(object.kind)];
}

/** The offline verdict: defaults applied as the server applies them, then a create or (with `old`) an update. */
export async function offlineErrors(f: ExampleFixture, out?: string): Promise<FieldError[]> {
  const mod = await exampleValidator(f.object, out);
  const o = structuredClone(f.object);
  mod.applyDefaults(o);
  if (!f.old) return mod.validate(o);
  const old = structuredClone(f.old);
  mod.applyDefaults(old);
  return mod.validateUpdate(o, old);
}

export function exampleFixtures(): ExampleFixture[] {
  const dir = join(EXAMPLE, 'fixtures');
  const creates = readdirSync(dir).filter((n) => n.endsWith('.yaml')).sort().map((n) => read(join(dir, n), n));
  const updates = readdirSync(join(dir, 'updates')).filter((n) => n.endsWith('.yaml')).sort().map((n) => read(join(dir, 'updates', n), `updates/${n}`));
  return [...creates, ...updates];
}
