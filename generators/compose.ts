// Runs every generator, refuses two generators writing the same path, and formats the results.
import type { Model } from './model/model.ts';
import type { Generator, OutputFile } from './output.ts';
import { formatPool } from './format-pool.ts';

/**
 * Code is formatted with prettier. Data (JSON, YAML) and the Markdown reports are already written in
 * canonical form by their serializers, and prettier on them would cost most of the generation time.
 */
const isCode = (path: string): boolean => path.endsWith('.ts');

export class ComposeError extends Error {}

export async function compose(model: Model, generators: Generator[]): Promise<OutputFile[]> {
  const pool = formatPool();
  if (!pool.remembers) pool.start(); // prettier loads while the first generators run
  // Code goes to the format worker as soon as its generator returns it, so that formatting runs while
  // the next generators do; an async generator (the types, compiled in the worker) runs on meanwhile.
  const dispatch = (files: OutputFile[]): Array<{ path: string; done: Promise<OutputFile> }> =>
    files.map((file) => {
      const done = isCode(file.path) && !file.preformatted ? pool.format(file.content).then((content) => ({ path: file.path, content })) : Promise.resolve({ path: file.path, content: file.content });
      done.catch(() => undefined); // handled by Promise.all below, or moot when a generator throws
      return { path: file.path, done };
    });
  const started = generators.map((g) => {
    const out = g.generate(model);
    const run = Array.isArray(out) ? Promise.resolve(dispatch(out)) : out.then(dispatch);
    run.catch(() => undefined);
    return run;
  });
  const owner = new Map<string, string>();
  const files: Promise<OutputFile>[] = [];
  for (const [i, g] of generators.entries()) {
    for (const { path, done } of await started[i]) {
      const prior = owner.get(path);
      if (prior) throw new ComposeError(`generators ${prior} and ${g.name} both write out/${path}`);
      if (path.startsWith('/') || path.split('/').includes('..')) throw new ComposeError(`generator ${g.name} writes outside out/: ${path}`);
      owner.set(path, g.name);
      files.push(done);
    }
  }
  const formatted = await Promise.all(files);
  return formatted.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
