// The generation pipeline: load and check the spec, run every generator, compose the outputs.
import { loadSpec } from './model/load.ts';
import { checkModel } from './model/check.ts';
import { compose } from './compose.ts';
import type { Generator, OutputFile } from './output.ts';
import { openapiGenerator } from './openapi/generator.ts';
import { typesGenerator } from './types/generator.ts';
import { routesGenerator } from './routes/generator.ts';
import { crdsGenerator } from './crds/generator.ts';
import { validatorsGenerator } from './validators/generator.ts';
import { rulesReportGenerator } from './rules-report/generator.ts';
import { entryGenerator } from './entry.ts';
import { docsGenerator } from './docs/index.ts';
import { jsonSchemaGenerator } from './json-schema/generator.ts';

export const generators: Generator[] = [
  openapiGenerator,
  typesGenerator,
  validatorsGenerator,
  crdsGenerator,
  routesGenerator,
  rulesReportGenerator,
  docsGenerator,
  entryGenerator,
  jsonSchemaGenerator,
];

export async function generate(root: string): Promise<OutputFile[]> {
  const spec = await loadSpec(root);
  checkModel(spec);
  return compose(spec.model, generators);
}
