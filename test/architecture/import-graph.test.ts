// Imports flow one way (issue 14): runtime/ never imports out/ (the generated artifacts are handed
// in where the server and the CLI are assembled), each folder of runtime/ imports only folders of
// its own layer or lower ones, and the generators never import the HTTP layer. A failure lists each
// offending import with its file and line.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  generatorImportsOf, importsOf, layerViolations, mutualImports, runtimeFolders, runtimeLeaks, sourceFiles, testSupportModules, type ImportEdge,
} from './import-graph.ts';

/**
 * The layers of runtime/, low to high. A folder may import its own layer and lower ones; folders of
 * one layer may import each other. A file directly under runtime/ is a folder of its own.
 */
const LAYERS: readonly (readonly string[])[] = [
  // Leaves: JSON helpers, quantities, Go's duration and string syntax, the stack size. Import nothing of runtime/.
  ['json', 'quantity', 'go-duration', 'go-strings', 'stack-size'],
  // The schema compiler and CEL: schemas compile their CEL rules, CEL's type checks read schemas.
  ['cel', 'schema'],
  // The one error type; it carries the schema's field errors.
  ['errors'],
  // The storage backends (etcd-shaped, know nothing of objects) and the patch algorithms (schemas and errors).
  ['storage', 'patch'],
  // The API's vocabulary: objects and metadata, resource descriptors, printer columns, operation names, the user of a request.
  ['api'],
  // Table cell formatters (upstream's pkg/printers); the controller machinery (work queue, watch restart, leader election over storage).
  ['printers', 'controller'],
  // Objects in storage: codec, conversion, storage errors as ApiError, guaranteed update (upstream's etcd3 store).
  ['object-storage'],
  // The admission chain and webhooks, and the authorizer (admission's CEL match conditions ask it; it asks nothing of admission).
  ['admission', 'authorization'],
  // The generic Store, per-kind strategies, the Registry.
  ['registry'],
  // What runs on the registry: CRDs and custom resources (with the CRD strategy, handed to the Registry by the
  // assembly), StorageVersionMigration (resolves custom resources through crd), garbage collection, events.
  ['crd', 'migration', 'garbage-collector', 'events'],
  // Offline validation for `clusterspec validate` (custom resources through crd).
  ['validate'],
  // The server: handlers, serving, and bootstrap.ts, which assembles everything with the generated artifacts.
  ['http'],
  // The process: `npm start` and its stack re-exec.
  ['stack-reexec', 'cli'],
];

const root = join(import.meta.dirname, '..', '..');
const runtimeFiles = sourceFiles(root, 'runtime');
const generatorFiles = sourceFiles(root, 'generators');
const allEdges = [...runtimeFiles, ...generatorFiles].flatMap((f) => importsOf(root, f));
// Test support modules (runtime/storage/test-support.ts, runtime/admission/webhook-fixture.ts, ...) are test code: tests may import out/.
const support = testSupportModules([...runtimeFiles, ...generatorFiles], allEdges);
const edges = allEdges.filter((e) => !support.has(e.from));

describe('the import graph of the repository', () => {
  it('reads the imports (the graph is not empty)', () => {
    expect(runtimeFiles.length).toBeGreaterThan(100);
    expect(edges.some((e) => e.from === 'runtime/http/bootstrap.ts' && e.to === 'runtime/registry/registry.ts')).toBe(true);
  });

  it('leaves out only test support modules that production code does not import', () => {
    expect(support.has('runtime/storage/test-support.ts')).toBe(true);
    expect([...support].filter((f) => allEdges.some((e) => e.to === f && !support.has(e.from)))).toEqual([]);
  });

  it('runtime/ imports nothing outside runtime/ (out/ least of all)', () => {
    expect(runtimeLeaks(edges)).toEqual([]);
  });

  it('no folder of runtime/ imports a higher layer, and every folder has a layer', () => {
    expect(layerViolations(edges, LAYERS, runtimeFolders(runtimeFiles))).toEqual([]);
  });

  it('no two folders of runtime/ import each other, except the schema compiler and CEL', () => {
    expect(mutualImports(edges, ['cel|schema'])).toEqual([]);
  });

  it('generators/ imports nothing from runtime/http/', () => {
    expect(generatorImportsOf(edges, 'runtime/http/')).toEqual([]);
  });
});

// The rules on planted graphs: each case carries the problems it must produce.
const PLANTED_LAYERS = [['json'], ['schema'], ['registry', 'crd'], ['http']];
const PLANTED_FOLDERS = ['json', 'schema', 'registry', 'crd', 'http'];
const edge = (from: string, to: string, line = 1): ImportEdge => ({ from, line, to });

describe('the rules on planted graphs', () => {
  it.each([
    { name: 'downward and same-folder edges', edges: [edge('runtime/http/a.ts', 'runtime/registry/b.ts'), edge('runtime/registry/b.ts', 'runtime/registry/c.ts')], want: [] },
    { name: 'same layer, both ways', edges: [edge('runtime/registry/a.ts', 'runtime/crd/b.ts'), edge('runtime/crd/b.ts', 'runtime/registry/a.ts')], want: [] },
    {
      name: 'an upward edge',
      edges: [edge('runtime/registry/store.ts', 'runtime/http/route-types.ts', 7)],
      want: ['runtime/registry/store.ts:7 imports runtime/http/route-types.ts: registry (layer 2) must not import http (layer 3)'],
    },
    {
      name: 'a leaf importing up',
      edges: [edge('runtime/json/clone.ts', 'runtime/schema/types.ts', 3)],
      want: ['runtime/json/clone.ts:3 imports runtime/schema/types.ts: json (layer 0) must not import schema (layer 1)'],
    },
    {
      name: 'a folder with no layer',
      edges: [edge('runtime/informer/a.ts', 'runtime/json/b.ts')],
      want: ['runtime/informer has no layer in the table'],
    },
  ])('$name', ({ edges: planted, want }) => {
    expect(layerViolations(planted, PLANTED_LAYERS, PLANTED_FOLDERS)).toEqual(want);
  });

  it.each([
    {
      name: 'two folders importing each other',
      edges: [edge('runtime/authorization/authorizer.ts', 'runtime/admission/types.ts', 5), edge('runtime/admission/types.ts', 'runtime/authorization/authorizer.ts', 9)],
      want: ['admission and authorization import each other: runtime/admission/types.ts:9 imports runtime/authorization/authorizer.ts, runtime/authorization/authorizer.ts:5 imports runtime/admission/types.ts'],
    },
    { name: 'an allowed pair', edges: [edge('runtime/cel/a.ts', 'runtime/schema/b.ts'), edge('runtime/schema/b.ts', 'runtime/cel/a.ts')], want: [] },
    { name: 'one way only', edges: [edge('runtime/admission/a.ts', 'runtime/authorization/b.ts')], want: [] },
  ])('mutual imports: $name', ({ edges: planted, want }) => {
    expect(mutualImports(planted, ['cel|schema'])).toEqual(want);
  });

  it('a folder of runtime/ that the table does not place, imported or not', () => {
    expect(layerViolations([], PLANTED_LAYERS, [...PLANTED_FOLDERS, 'informer'])).toEqual(['runtime/informer has no layer in the table']);
  });

  it('a folder of the table that runtime/ no longer has', () => {
    expect(layerViolations([], PLANTED_LAYERS, PLANTED_FOLDERS.filter((f) => f !== 'crd'))).toEqual(['runtime/crd is in the table but not in runtime/']);
  });

  it.each([
    { name: 'only tests import it', files: ['runtime/x/test-support.ts', 'runtime/x/a.ts'], edges: [], want: ['runtime/x/test-support.ts'] },
    { name: 'production imports it', files: ['runtime/x/test-support.ts', 'runtime/x/a.ts'], edges: [edge('runtime/x/a.ts', 'runtime/x/test-support.ts')], want: [] },
    {
      name: 'production imports it through another support module',
      files: ['runtime/x/test-support.ts', 'runtime/x/webhook-fixture.ts', 'runtime/x/a.ts'],
      edges: [edge('runtime/x/a.ts', 'runtime/x/webhook-fixture.ts'), edge('runtime/x/webhook-fixture.ts', 'runtime/x/test-support.ts')],
      want: [],
    },
    { name: 'not named for tests', files: ['runtime/x/registry-helpers.ts'], edges: [], want: [] },
  ])('test support: $name', ({ files, edges: planted, want }) => {
    expect([...testSupportModules(files, planted)]).toEqual(want);
  });

  it.each([
    { name: 'runtime importing out', edges: [edge('runtime/crd/validate-crd.ts', 'out/validators/customresourcedefinition.ts', 6)], want: ['runtime/crd/validate-crd.ts:6 imports out/validators/customresourcedefinition.ts: runtime/ imports only runtime/'] },
    { name: 'runtime importing generators', edges: [edge('runtime/http/a.ts', 'generators/model/model.ts', 2)], want: ['runtime/http/a.ts:2 imports generators/model/model.ts: runtime/ imports only runtime/'] },
    { name: 'out importing runtime', edges: [edge('out/routes/a.ts', 'runtime/http/route-types.ts')], want: [] },
  ])('leaks: $name', ({ edges: planted, want }) => {
    expect(runtimeLeaks(planted)).toEqual(want);
  });

  it.each([
    { name: 'generators importing runtime/http', edges: [edge('generators/model/model.ts', 'runtime/http/printer-column.ts', 3)], want: ['generators/model/model.ts:3 imports runtime/http/printer-column.ts: generators/ must not import runtime/http/'] },
    { name: 'generators importing runtime/api', edges: [edge('generators/model/model.ts', 'runtime/api/printer-column.ts', 3)], want: [] },
    { name: 'runtime/http importing itself', edges: [edge('runtime/http/a.ts', 'runtime/http/b.ts')], want: [] },
  ])('generators: $name', ({ edges: planted, want }) => {
    expect(generatorImportsOf(planted, 'runtime/http/')).toEqual(want);
  });
});
