// Fills the templates of templates/: `{{name}}` placeholders, every one required.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const templatesDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'templates');
const cache = new Map<string, string>();

export function renderTemplate(name: string, values: Record<string, string>): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(join(templatesDir, name), 'utf8');
    cache.set(name, text);
  }
  return text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!(key in values)) throw new Error(`template ${name}: no value for {{${key}}}`);
    return values[key];
  });
}
