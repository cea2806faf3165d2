// out/routes: one module per resource binding every operation to a named runtime handler,
// plus an index listing them all. Written with ts-morph so the output is well-formed TypeScript.
import { Project, VariableDeclarationKind, type SourceFile } from 'ts-morph';
import type { Model, Resource } from '../model/model.ts';
import { operationsOf } from '../model/operations.ts';
import { GENERATED_HEADER, type Generator, type OutputFile } from '../output.ts';

// By schema name: the kind's, or the name a kind served in two groups gives this group's schema.
export const moduleName = (r: Resource): string => r.shape.toLowerCase();
const bindingName = (r: Resource): string => `${r.shape.charAt(0).toLowerCase()}${r.shape.slice(1)}Routes`;
const resourceConstName = (r: Resource): string => `${r.shape.charAt(0).toLowerCase()}${r.shape.slice(1)}Resource`;

function descriptor(r: Resource): Record<string, unknown> {
  return {
    kind: r.kind,
    listKind: r.listKind,
    group: r.group,
    version: r.version,
    plural: r.plural,
    singular: r.singular,
    shortNames: r.shortNames,
    categories: r.categories,
    namespaced: r.scope === 'Namespaced',
    subresources: r.subresources,
    deleteReturns: r.deleteReturns,
    maturity: r.maturity,
    generation: r.generation,
    updateRequiresResourceVersion: r.updateRequiresResourceVersion,
    nameSyntax: r.nameSyntax,
    fieldSelectors: r.fieldSelectors,
    printerColumns: r.printerColumns,
    // only where it differs from the kind (the runtime looks a kind's schema up by this name)
    ...(r.shape !== r.kind ? { shape: r.shape } : {}),
  };
}

function resourceModule(project: Project, model: Model, r: Resource): SourceFile {
  const file = project.createSourceFile(`${moduleName(r)}.ts`, '', { overwrite: true });
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: '../../runtime/api/resource-descriptor.ts', namedImports: ['ResourceDescriptor'] });
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: '../../runtime/http/route-types.ts', namedImports: ['RouteHandlers', 'RouteTable'] });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    declarations: [{ name: resourceConstName(r), type: 'ResourceDescriptor', initializer: JSON.stringify(descriptor(r)) }],
  });
  const routes = operationsOf(model, r).map((op) => {
    const fields = [
      `operationId: ${JSON.stringify(op.operationId)}`,
      `method: ${JSON.stringify(op.method)}`,
      `path: ${JSON.stringify(op.path)}`,
      `action: ${JSON.stringify(op.action)}`,
      `handlerName: ${JSON.stringify(op.handler)}`,
      `handler: handlers.${op.handler}`,
      `pathParameters: ${JSON.stringify(op.pathParameters)}`,
      `queryParameters: ${JSON.stringify(op.queryParameters)}`,
      ...(op.requestBody ? [`requestBody: ${JSON.stringify(op.requestBody)}`] : []),
      `successCodes: ${JSON.stringify(op.responses.map((x) => x.code))}`,
      ...(op.subresource ? [`subresource: ${JSON.stringify(op.subresource)}`] : []),
      `allNamespaces: ${op.allNamespaces}`,
      `deprecated: ${op.deprecated === true}`,
    ];
    return `{ ${fields.join(', ')} }`;
  });
  file.addFunction({
    isExported: true,
    name: bindingName(r),
    typeParameters: ['H'],
    parameters: [{ name: 'handlers', type: 'RouteHandlers<H>' }],
    returnType: 'RouteTable<H>',
    docs: [`Binds every operation of ${r.kind} to the runtime's handlers.`],
    statements: [`return { resource: ${resourceConstName(r)}, routes: [${routes.join(',\n')}] };`],
  });
  file.insertText(0, `${GENERATED_HEADER}\n// Routes of ${r.kind} (${r.group || 'core'}/${r.version}).\n\n`);
  return file;
}

function indexModule(project: Project, model: Model): SourceFile {
  const file = project.createSourceFile('index.ts', '', { overwrite: true });
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: '../../runtime/http/route-types.ts', namedImports: ['RouteHandlers', 'RouteTable'] });
  for (const r of model.resources) {
    file.addImportDeclaration({ moduleSpecifier: `./${moduleName(r)}.ts`, namedImports: [bindingName(r)] });
  }
  file.addFunction({
    isExported: true,
    name: 'allRoutes',
    typeParameters: ['H'],
    parameters: [{ name: 'handlers', type: 'RouteHandlers<H>' }],
    returnType: 'RouteTable<H>[]',
    docs: ['The route tables of every built-in resource, in group then kind order.'],
    statements: [`return [${model.resources.map((r) => `${bindingName(r)}(handlers)`).join(', ')}];`],
  });
  file.insertText(0, `${GENERATED_HEADER}\n// Every resource's route table.\n\n`);
  return file;
}

export const routesGenerator: Generator = {
  name: 'routes',
  generate(model: Model): OutputFile[] {
    const project = new Project({ useInMemoryFileSystem: true });
    const files = [...model.resources.map((r) => resourceModule(project, model, r)), indexModule(project, model)];
    return files.map((f) => ({ path: `routes/${f.getBaseName()}`, content: f.getFullText() }));
  },
};
