// What a project borrows from this repository's spec: the meta shapes (ObjectMeta, ListMeta, Status,
// DeleteOptions, Patch, ...), and for CRD input the platform version and the shared operation parameters.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Schema } from '../../runtime/schema/types.ts';
import type { Model, OperationKind, Parameter, Shape } from '../model/model.ts';

export const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PLATFORM_OUT = join(REPOSITORY_ROOT, 'out');
export const RUNTIME_DIR = join(REPOSITORY_ROOT, 'runtime');
export const META_SHAPES_FILE = join(REPOSITORY_ROOT, 'spec', 'shapes', 'meta.yaml');
const API_FILE = join(REPOSITORY_ROOT, 'spec', 'api.yaml');

export interface PlatformLibrary {
  platform: Model['platform'];
  parameters: Record<string, Parameter>;
  operationParameters: Record<OperationKind, string[]>;
  shapes: Shape[];
}

let cached: PlatformLibrary | undefined;

/** Read from spec/ as written there (the repository's own generation checks these files). */
export function platformLibrary(root: string): PlatformLibrary {
  if (cached) return cached;
  const api = parse(readFileSync(API_FILE, 'utf8')) as {
    'x-cluster-platform': Model['platform'];
    components: { parameters: Record<string, Parameter> };
    'x-cluster-operation-parameters': Record<OperationKind, string[]>;
  };
  const meta = parse(readFileSync(META_SHAPES_FILE, 'utf8')) as { 'x-cluster-package': string; components: { schemas: Record<string, Schema> } };
  const file = relative(root, META_SHAPES_FILE);
  cached = {
    platform: api['x-cluster-platform'],
    parameters: api.components.parameters,
    operationParameters: api['x-cluster-operation-parameters'],
    shapes: Object.entries(meta.components.schemas).map(([name, schema]) => ({ name, package: meta['x-cluster-package'], file, schema })),
  };
  return cached;
}
