// out/index.ts: the package entry, exporting the types, validators and route tables.
import { GENERATED_HEADER, type Generator } from './output.ts';

export const entryGenerator: Generator = {
  name: 'entry',
  generate() {
    return [{
      path: 'index.ts',
      content: `${GENERATED_HEADER}
// The package entry of clusterspec's generated artifacts.
export * from './types/index.ts';
export * as validators from './validators/index.ts';
export { allRoutes } from './routes/index.ts';
`,
    }];
  },
};
