// out/routes: one module per resource binding every operation to a named runtime handler,
// plus an index listing them all. Written in prettier's form by the literal printer, so compose.ts
// needs no prettier run for them (ts-morph wrote them before, and loading TypeScript cost a third
// of a second of every cold run). Their keys are identifiers and their number lists short, which
// the printer handles; it throws UnsupportedLiteral, failing generation, on anything else.
import type { Model, Resource } from '../model/model.ts';
import { operationsOf } from '../model/operations.ts';
import { GENERATED_HEADER, type Generator, type OutputFile } from '../output.ts';
import { printLiteral, RawCode, type Literal } from '../literal-printer.ts';

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

function routeTable(model: Model, r: Resource): Literal {
  const routes = operationsOf(model, r).map((op): Literal => ({
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    action: op.action,
    handlerName: op.handler,
    handler: new RawCode(`handlers.${op.handler}`),
    pathParameters: op.pathParameters,
    queryParameters: op.queryParameters,
    requestBody: op.requestBody,
    successCodes: op.responses.map((x) => x.code),
    subresource: op.subresource || undefined,
    allNamespaces: op.allNamespaces,
    deprecated: op.deprecated === true,
  }));
  return { resource: new RawCode(resourceConstName(r)), routes };
}

function resourceModule(model: Model, r: Resource): string {
  const declaration = `export const ${resourceConstName(r)}: ResourceDescriptor = `;
  return `${GENERATED_HEADER}
// Routes of ${r.kind} (${r.group || 'core'}/${r.version}).

import type { ResourceDescriptor, RouteHandlers, RouteTable } from '../../runtime/http/route-types.ts';

${declaration}${printLiteral(descriptor(r) as Literal, 0, declaration.length, 1)};

/** Binds every operation of ${r.kind} to the runtime's handlers. */
export function ${bindingName(r)}<H>(handlers: RouteHandlers<H>): RouteTable<H> {
  return ${printLiteral(routeTable(model, r), 2, '  return '.length, 1)};
}
`;
}

function indexModule(model: Model): string {
  const imports = model.resources.map((r) => `import { ${bindingName(r)} } from './${moduleName(r)}.ts';\n`).join('');
  const tables = model.resources.map((r) => new RawCode(`${bindingName(r)}(handlers)`));
  return `${GENERATED_HEADER}
// Every resource's route table.

import type { RouteHandlers, RouteTable } from '../../runtime/http/route-types.ts';
${imports}
/** The route tables of every built-in resource, in group then kind order. */
export function allRoutes<H>(handlers: RouteHandlers<H>): RouteTable<H>[] {
  return ${printLiteral(tables, 2, '  return '.length, 1)};
}
`;
}

export const routesGenerator: Generator = {
  name: 'routes',
  generate(model: Model): OutputFile[] {
    return [
      ...model.resources.map((r) => ({ path: `routes/${moduleName(r)}.ts`, content: resourceModule(model, r), preformatted: true })),
      { path: 'routes/index.ts', content: indexModule(model), preformatted: true },
    ];
  },
};
