// Runs every generator, refuses two generators writing the same path, and formats the results.
import { format, type Options } from 'prettier';
import type { Model } from './model/model.ts';
import type { Generator, OutputFile } from './output.ts';

const prettierBase: Options = { printWidth: 120, singleQuote: true, trailingComma: 'all' };

function parserFor(path: string): string | undefined {
  if (path.endsWith('.ts')) return 'typescript';
  if (path.endsWith('.json')) return 'json';
  if (path.endsWith('.yaml')) return 'yaml';
  if (path.endsWith('.md')) return 'markdown';
  return undefined;
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
