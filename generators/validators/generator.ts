// out/validators: per resource validate(obj) and validateUpdate(obj, old), compiled by the
// runtime's schema compiler from one shared definitions.json of every shape.
import type { Model } from '../model/model.ts';
import { GENERATED_HEADER, type Generator, type OutputFile } from '../output.ts';
import { renderTemplate } from '../templates.ts';
import { moduleName } from '../routes/generator.ts';

export const validatorsGenerator: Generator = {
  name: 'validators',
  generate(model: Model): OutputFile[] {
    const definitions = Object.fromEntries([...model.shapes].map(([name, shape]) => [name, shape.schema]));
    const gates = Object.fromEntries(model.featureGates.map((g) => [g.name, g.default]));
    const files: OutputFile[] = [
      // One top-level key: bundlers turn top-level JSON keys into module bindings (a shape named JSON would shadow JSON).
      { path: 'validators/definitions.json', content: `${JSON.stringify({ shapes: definitions }, null, 2)}\n` },
      {
        path: 'validators/definitions.ts',
        content: `${GENERATED_HEADER}
import type { Schema } from '../../runtime/schema/types.ts';
import json from './definitions.json' with { type: 'json' };

/** Every shape of spec/ by name, as the generator wrote it from the checked spec. */
export const definitions: Record<string, Schema> = json.shapes as Record<string, unknown> as Record<string, Schema>;
`,
      },
      {
        path: 'validators/feature-gates.ts',
        content: `${GENERATED_HEADER}\n/** Feature gates with their documented defaults (spec/api.yaml). */\nexport const featureGateDefaults: Record<string, boolean> = ${JSON.stringify(gates)};\n`,
      },
    ];
    for (const r of model.resources) {
      const resourceContext = { kind: r.kind, group: r.group, version: r.version, namespaced: r.scope === 'Namespaced', nameSyntax: r.nameSyntax };
      files.push({
        path: `validators/${moduleName(r)}.ts`,
        content: renderTemplate('validator.ts.tmpl', {
          header: GENERATED_HEADER,
          kind: r.kind,
          apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
          resourceContext: JSON.stringify(resourceContext),
        }),
      });
    }
    const index = model.resources
      .map((r) => `export * as ${r.kind} from './${moduleName(r)}.ts';`)
      .join('\n');
    files.push({ path: 'validators/index.ts', content: `${GENERATED_HEADER}\n// The validators of every resource, by kind.\n${index}\n` });
    return files;
  },
};
