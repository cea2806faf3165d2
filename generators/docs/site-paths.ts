// Where each page of the docs site lives and how pages link to each other and to the kinds' JSON
// Schemas. Every href is relative, so the site works from file:// and under any server prefix.
import { jsonSchemaFile } from '../json-schema/generator.ts';
import type { Resource } from '../model/model.ts';

/** The folder of a group's pages: the core group has the empty name. */
export const groupDir = (group: string): string => (group === '' ? 'core' : group);

/** A kind page's path from the site root: `<group>/<kind>_<version>.html`, the JSON Schema layout. */
export const kindPagePath = (r: Pick<Resource, 'group' | 'version' | 'kind'>): string =>
  `${groupDir(r.group)}/${r.kind.toLowerCase()}_${r.version}.html`;

/** From a kind page back to the site root (kind pages sit one folder down). */
export const KIND_PAGE_ROOT = '../';

/**
 * The default location of the JSON Schema files (generators/json-schema: `<group>/<kind>_<version>.json`,
 * core kinds at the top), relative to the docs root: out/jsonschema beside out/docs.
 */
export const DEFAULT_JSON_SCHEMA_BASE = '../jsonschema';

/** The JSON Schema link of a kind page, given the schema folder relative to the docs root (or an absolute URL). */
export function jsonSchemaHref(r: Pick<Resource, 'group' | 'version' | 'kind'>, base: string): string {
  const file = jsonSchemaFile(r);
  const trimmed = base.replace(/\/+$/, '');
  return /^[a-z]+:/i.test(trimmed) || trimmed.startsWith('/') ? `${trimmed}/${file}` : `${KIND_PAGE_ROOT}${trimmed}/${file}`;
}

/** A field's anchor id on its kind page: the field path itself (`spec.csi.volumeHandle`). */
export const fieldAnchor = (path: string): string => path;
