// Table output (api-conventions 7), as upstream's printers build it: the Name column, then the
// resource's printerColumns in order (Age among them where upstream puts it, priority-1 columns
// after it for `-o wide`). A column at `.metadata.name` replaces the implicit first Name column
// (upstream's Event table puts Name last).
// `count` columns count the keys or items found at their paths; `formatter` columns use a named
// cell formatter (runtime/printers/); `whenAbsent` is the cell of an absent value.

import type { PrinterColumn } from '../api/printer-column.ts';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';
import { isObj, metaOf, type Obj } from '../api/object.ts';
import { cellFormatters } from '../printers/index.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: Obj;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
/**
 * Descriptors of custom resources, whose table follows upstream's CRD table convertor: `date`
 * cells print as human durations.
 */
export const completePrinterColumns = new WeakSet<ResourceDescriptor>();

const NAME_PATH = '.metadata.name';

const IMPLICIT_NAME: PrinterColumn = { name: 'Name', type: 'string', format: 'name', jsonPath: NAME_PATH, description: NAME_DESCRIPTION, whenAbsent: '' };

/**
 * Every column of the table: the declared ones, after an implicit Name unless a built-in kind
 * declares its Name column (a CRD's own `.metadata.name` column is an extra one, as upstream's).
 */
function allColumns(d: ResourceDescriptor): readonly PrinterColumn[] {
  const declaresName = !completePrinterColumns.has(d) && d.printerColumns.some((c) => c.jsonPath === NAME_PATH);
  return declaresName ? d.printerColumns : [IMPLICIT_NAME, ...d.printerColumns];
}

export function columnDefinitions(d: ResourceDescriptor): TableColumnDefinition[] {
  return allColumns(d).map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description || (c.jsonPath === NAME_PATH ? NAME_DESCRIPTION : ''),
    priority: c.priority ?? 0,
  }));
}

/** Resolves a simple JSONPath (`.spec.a.b`, `.items[0].x`, `{.a}`); undefined when absent. */
export function resolvePath(obj: unknown, path: string): unknown {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const tokens: (string | number)[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(p)) !== null) {
    if (m.index !== consumed) return undefined;
    consumed = re.lastIndex;
    if (m[1] !== undefined) tokens.push(m[1]);
    else if (m[2] !== undefined) tokens.push(Number(m[2]));
    else tokens.push(m[3]);
  }
  if (consumed !== p.length) return undefined;
  let cur: unknown = obj;
  for (const t of tokens) {
    if (typeof t === 'number') cur = Array.isArray(cur) ? cur[t] : undefined;
    else cur = isObj(cur) ? cur[t] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

const isAbsent = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

function cellValue(obj: Obj, c: PrinterColumn, now: number, datesAsAge: boolean): unknown {
  if (c.count) {
    let n = 0;
    for (const p of c.count) {
      const v = resolvePath(obj, p);
      if (Array.isArray(v)) n += v.length;
      else if (isObj(v)) n += Object.keys(v).length;
    }
    return n;
  }
  const found = resolvePath(obj, c.jsonPath);
  const formatter = c.formatter === undefined ? undefined : cellFormatters[c.formatter];
  const v = formatter ? formatter(found, obj, now) : found;
  if (isAbsent(v)) return c.whenAbsent ?? null;
  if (datesAsAge && c.type === 'date' && typeof v === 'string') return cellFormatters.age(v, obj, now);
  if (Array.isArray(v)) return v.every((x) => typeof x !== 'object' || x === null) ? v.join(',') : JSON.stringify(v);
  if (isObj(v)) return JSON.stringify(v);
  return v;
}

export function partialObjectMetadata(obj: Obj, metaGroup: string): Obj {
  return { kind: 'PartialObjectMetadata', apiVersion: `${metaGroup}/v1`, metadata: metaOf(obj) };
}

export function tableRow(d: ResourceDescriptor, obj: Obj, include: IncludeObject, metaGroup: string, apiVersion: string, now = Date.now()): TableRow {
  const datesAsAge = completePrinterColumns.has(d);
  const cells = allColumns(d).map((c) => cellValue(obj, c, now, datesAsAge));
  return finishRow({ cells }, d, obj, include, metaGroup, apiVersion);
}

function finishRow(row: TableRow, d: ResourceDescriptor, obj: Obj, include: IncludeObject, metaGroup: string, apiVersion: string): TableRow {
  if (include === 'Metadata') row.object = partialObjectMetadata(obj, metaGroup);
  else if (include === 'Object') row.object = { kind: d.kind, apiVersion, ...withoutTypeMeta(obj) };
  return row;
}

function withoutTypeMeta(o: Obj): Obj {
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return rest;
}

export function toTable(
  d: ResourceDescriptor,
  objects: Obj[],
  listMeta: Table['metadata'],
  include: IncludeObject,
  metaGroup: string,
  apiVersion: string,
  withHeaders = true,
): Table {
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: `${metaGroup}/v1`,
    metadata: listMeta,
    columnDefinitions: withHeaders ? columnDefinitions(d) : [],
    rows: objects.map((o) => tableRow(d, o, include, metaGroup, apiVersion, now)),
  };
}
