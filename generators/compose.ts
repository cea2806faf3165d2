// Runs every generator, refuses two generators writing the same path, and formats the results.
import { format, type Options } from 'prettier';
import type { Model } from './model/model.ts';
import type { Generator, OutputFile } from './output.ts';

const prettierBase: Options = { printWidth: 120, singleQuote: true, trailingComma: 'all' };

/**
 * Code is formatted with prettier. Data (JSON, YAML) and the Markdown reports are already written in
 * canonical form by their serializers, and prettier on them would cost most of the generation time.
 */
function parserFor(path: string): string | undefined {
  return path.endsWith('.ts') ? 'typescript' : undefined;
}

export class ComposeError extends Error {}

export async function compose(model: Model, generators: Generator[]): Promise<OutputFile[]> {
  const owner = new Map<string, string>();
  const files: OutputFile[] = [];
  for (const g of generators) {
    for (const file of await g.generate(model)) {
      const prior = owner.get(file.path);
      if (prior) throw new ComposeError(`generators ${prior} and ${g.name} both write out/${file.path}`);
      if (file.path.startsWith('/') || file.path.split('/').includes('..')) {
        throw new ComposeError(`generator ${g.name} writes outside out/: ${file.path}`);
      }
      owner.set(file.path, g.name);
      files.push(file);
    }
  }
  const formatted = await Promise.all(
    files.map(async (f) => {
      const parser = parserFor(f.path);
      return parser ? { path: f.path, content: await format(f.content, { ...prettierBase, parser }) } : f;
    }),
  );
  return formatted.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
