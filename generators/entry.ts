// out/index.ts: the package entry, exporting the types, validators and (for this repository's server) route tables.
import { GENERATED_HEADER, type Generator } from './output.ts';

export interface EntryParts {
  /** The server's route tables (this repository only: a project's output has no routes). */
  routes: boolean;
}

export function createEntryGenerator(parts: EntryParts): Generator {
  return {
    name: 'entry',
    generate() {
      return [{
        path: 'index.ts',
        content: `${GENERATED_HEADER}
// The package entry of clusterspec's generated artifacts.
export * from './types/index.ts';
export * as validators from './validators/index.ts';
${parts.routes ? "export { allRoutes } from './routes/index.ts';\n" : ''}`,
      }];
    },
  };
}

export const entryGenerator: Generator = createEntryGenerator({ routes: true });
