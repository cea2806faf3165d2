// Table output (api-conventions 7): Name first, then the resource's printerColumns, Age last.
// `count` columns count the keys or items found at their paths.

import type { PrinterColumn } from './printer-column.ts';
import type { ResourceDescriptor } from './route-types.ts';
import { isObj, metaOf, type Obj } from '../registry/object.ts';

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
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.';

/**
 * Descriptors whose printerColumns are the whole table after Name, as upstream's CRD table
 * convertor does (custom resources): no implicit Age column, `date` cells as human durations.
 */
export const completePrinterColumns = new WeakSet<ResourceDescriptor>();

export function columnDefinitions(d: ResourceDescriptor): TableColumnDefinition[] {
  return [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
    ...d.printerColumns.map((c) => ({ name: c.name, type: c.count ? 'integer' : c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 })),
    ...(completePrinterColumns.has(d) ? [] : [{ name: 'Age', type: 'string', format: '', description: AGE_DESCRIPTION, priority: 0 }]),
  ];
}

/** Upstream's duration.HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
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

function cellValue(obj: Obj, c: PrinterColumn): unknown {
  if (c.count) {
    let n = 0;
    for (const p of c.count) {
      const v = resolvePath(obj, p);
      if (Array.isArray(v)) n += v.length;
      else if (isObj(v)) n += Object.keys(v).length;
    }
    return n;
  }
  const v = resolvePath(obj, c.jsonPath);
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.every((x) => typeof x !== 'object' || x === null) ? v.join(',') : JSON.stringify(v);
  if (isObj(v)) return JSON.stringify(v);
  return v;
}

export function partialObjectMetadata(obj: Obj, metaGroup: string): Obj {
  return { kind: 'PartialObjectMetadata', apiVersion: `${metaGroup}/v1`, metadata: metaOf(obj) };
}

export function tableRow(d: ResourceDescriptor, obj: Obj, include: IncludeObject, metaGroup: string, apiVersion: string, now = Date.now()): TableRow {
  const m = metaOf(obj);
  const created = typeof m.creationTimestamp === 'string' ? Date.parse(m.creationTimestamp) : NaN;
  const age = (t: number): string => (Number.isNaN(t) ? '<unknown>' : humanDuration(now - t));
  if (completePrinterColumns.has(d)) {
    const cells: unknown[] = [m.name ?? '', ...d.printerColumns.map((c) => {
      const v = cellValue(obj, c);
      return c.type === 'date' && typeof v === 'string' ? age(Date.parse(v)) : v;
    })];
    return finishRow({ cells }, d, obj, include, metaGroup, apiVersion);
  }
  const cells: unknown[] = [m.name ?? '', ...d.printerColumns.map((c) => cellValue(obj, c)), age(created)];
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
