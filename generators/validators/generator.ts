// out/validators: per resource a standalone validator module (validate, validateUpdate, applyDefaults,
// prune, the strict option), its validation generated here by the schema compiler
// (runtime/schema/codegen-module.ts) with the data it links at run time beside it
// (`<kind>.data.ts`); and definitions.json of every shape, for the server and embedded shapes.
import type { Model } from '../model/model.ts';
import { GENERATED_HEADER, type Generator, type OutputFile } from '../output.ts';
import { renderTemplate } from '../templates.ts';
import { tryPrintLiteral } from '../literal-printer.ts';
import { moduleName } from '../routes/generator.ts';
import { compileSchemaModule, compileSharedModule, sharedDefinitionNames } from '../../runtime/schema/codegen-module.ts';
import { builtinCelRuleEngine } from '../../runtime/cel/index.ts';
import type { ResourceContext, Schema } from '../../runtime/schema/types.ts';

/**
 * JSON for a String.raw template literal: JSON.parse reads the text back (faster than an object
 * literal of the same size, and no import attributes, which plain ESM and CommonJS would need for a
 * .json file). A backquote and `${` only occur inside JSON strings, where a \u escape means the same.
 */
function rawJsonText(value: unknown): string {
  return JSON.stringify(value, null, 1).replace(/`/g, '\\u0060').replace(/\$\{/g, '$\\u007b');
}

const FEATURE_GATES_DECLARATION = 'export const featureGateDefaults: Record<string, boolean> = ';

export const validatorsGenerator: Generator = {
  name: 'validators',
  generate(model: Model): OutputFile[] {
    const definitions: Record<string, Schema> = Object.fromEntries([...model.shapes].map(([name, shape]) => [name, shape.schema]));
    const gates = Object.fromEntries(model.featureGates.map((g) => [g.name, g.default]));
    const gatesLiteral = tryPrintLiteral(gates, 0, FEATURE_GATES_DECLARATION.length, 1);
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
        content: `${GENERATED_HEADER}\n/** Feature gates with their documented defaults (spec/api.yaml). */\n${FEATURE_GATES_DECLARATION}${gatesLiteral ?? JSON.stringify(gates)};\n`,
        preformatted: gatesLiteral !== undefined,
      },
    ];
    // Definitions every kind reaches (ObjectMeta...): generated once in shared.ts, called by each kind.
    const roots = model.resources.map((r): Schema => ({ $ref: `#/components/schemas/${r.shape}` }));
    const sharedNames = sharedDefinitionNames(roots, definitions, new Set(model.resources.map((r) => r.shape)));
    const shared = compileSharedModule(sharedNames, { definitions, cel: builtinCelRuleEngine, celErrorValue: 'value' });
    files.push({
      path: 'validators/shared.ts',
      content: renderTemplate('validator-shared.ts.tmpl', {
        header: GENERATED_HEADER,
        names: sharedNames.join(', ') || 'none',
        source: shared.source,
        compiledCel: shared.compiledCel.map((f) => `${f},`).join('\n'),
        json: rawJsonText({ root: shared.data.root, definitions: shared.data.definitions, closures: shared.data.closures }),
      }),
    });
    for (const r of model.resources) {
      const resourceContext: ResourceContext = { kind: r.kind, group: r.group, version: r.version, namespaced: r.scope === 'Namespaced', nameSyntax: r.nameSyntax };
      const compiled = compileSchemaModule(
        { $ref: `#/components/schemas/${r.shape}` },
        { definitions, resource: resourceContext, cel: builtinCelRuleEngine, celErrorValue: 'value' },
        new Set(sharedNames),
      );
      const module = moduleName(r);
      files.push(
        {
          path: `validators/${module}.ts`,
          content: renderTemplate('validator.ts.tmpl', {
            header: GENERATED_HEADER,
            kind: r.kind,
            module,
            apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
            resourceContext: JSON.stringify(resourceContext),
            source: compiled.source,
            compiledCel: compiled.compiledCel.map((f) => `${f},`).join('\n'),
          }),
        },
        {
          path: `validators/${module}.data.ts`,
          content: renderTemplate('validator-data.ts.tmpl', { header: GENERATED_HEADER, kind: r.kind, json: rawJsonText(compiled.data) }),
          // prettier's form already: the template is, and prettier keeps a template literal's text
          preformatted: true,
        },
      );
    }
    const index = model.resources
      .map((r) => `export * as ${r.shape} from './${moduleName(r)}.ts';`)
      .join('\n');
    files.push({ path: 'validators/index.ts', content: `${GENERATED_HEADER}\n// The validators of every resource, by kind (by schema name where a kind is served in two groups).\n${index}\n` });
    return files;
  },
};
