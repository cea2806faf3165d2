// One error type for everything wrong with the spec: it names the file and the path inside it.

export interface SpecProblem {
  /** Spec file relative to the repository root, e.g. `spec/resources/configmap.yaml`. */
  file: string;
  /** Path inside the file, e.g. `components.schemas.ConfigMap.properties.data`. */
  path: string;
  message: string;
  /** 1-based line in the file when known. */
  line?: number;
}

export class SpecError extends Error {
  constructor(readonly problems: SpecProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'SpecError';
  }
}

export function formatProblem(p: SpecProblem): string {
  const where = p.line ? `${p.file}:${p.line}` : p.file;
  return `${where}: ${p.path || '(root)'}: ${p.message}`;
}

/** Renders a path array as `a.b[0].c`, quoting keys that are not plain identifiers. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}
