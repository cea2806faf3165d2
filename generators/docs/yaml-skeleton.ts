// An example YAML skeleton of a kind: apiVersion, kind, metadata and every required field (down to
// its own required fields) with a placeholder of its type; the optional fields of spec-level objects
// listed in a comment. status is left out: clients do not write it.
import type { Schema } from '../../runtime/schema/types.ts';
import { groupVersion, type Model, type Resource } from '../model/model.ts';
import { resolveNode } from './field-model.ts';

/** Objects nested deeper than this are written as `{}`: a skeleton, not a full example. */
const MAX_DEPTH = 6;
/** Optional fields are listed for objects down to this depth (spec's own fields, not deeper). */
const OPTIONAL_LIST_DEPTH = 2;

const isValueLine = (line: string): boolean => !line.trimStart().startsWith('#');

const scalar = (v: unknown): string => JSON.stringify(v);

function placeholder(s: Schema): string | undefined {
  if (s.default !== undefined && (typeof s.default !== 'object' || s.default === null)) return scalar(s.default);
  if (s.enum?.length) return scalar(s.enum[0]);
  if (s['x-cluster-int-or-string']) return '0';
  switch (s.type) {
    case 'string':
      return s.format === 'date-time' ? '"2026-01-01T00:00:00Z"' : s.format === 'quantity' ? '"1Gi"' : '""';
    case 'integer':
    case 'number':
      return String(s.minimum !== undefined && s.minimum > 0 ? s.minimum : 0);
    case 'boolean':
      return 'false';
    default:
      return undefined;
  }
}

function objectLines(model: Model, s: Schema, indent: string, depth: number, seen: Set<string>): string[] {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const lines: string[] = [];
  const optional = Object.keys(props).filter((k) => !required.has(k) && k !== 'status');
  for (const [name, raw] of Object.entries(props)) {
    if (!required.has(name)) continue;
    lines.push(...valueLines(model, name, raw, indent, depth, seen));
  }
  if (depth <= OPTIONAL_LIST_DEPTH && optional.length) lines.push(`${indent}# optional: ${optional.join(', ')}`);
  return lines;
}

function valueLines(model: Model, name: string, raw: Schema, indent: string, depth: number, seen: Set<string>): string[] {
  const { schema: s, shape } = resolveNode(model, raw);
  const value = placeholder(s);
  if (value !== undefined) return [`${indent}${name}: ${value}`];
  if (shape && seen.has(shape)) return [`${indent}${name}: {}`];
  const inner = new Set(seen);
  if (shape) inner.add(shape);
  if (s.type === 'array' && s.items) {
    const item = resolveNode(model, s.items).schema;
    const itemValue = placeholder(item);
    if (itemValue !== undefined) return [`${indent}${name}:`, `${indent}- ${itemValue}`];
    if (depth >= MAX_DEPTH || !item.properties) return [`${indent}${name}: []`];
    const body = objectLines(model, item, `${indent}  `, depth + 1, inner);
    if (!body.some(isValueLine)) return [`${indent}${name}:`, `${indent}- {}`, ...body];
    return [`${indent}${name}:`, `${indent}- ${body[0].trimStart()}`, ...body.slice(1)];
  }
  if (!s.properties || depth >= MAX_DEPTH) return [`${indent}${name}: {}`];
  const body = objectLines(model, s, `${indent}  `, depth + 1, inner);
  return body.some(isValueLine) ? [`${indent}${name}:`, ...body] : [`${indent}${name}: {}`, ...body];
}

export function yamlSkeleton(model: Model, r: Resource): string {
  const root = resolveNode(model, model.shapes.get(r.shape)?.schema ?? {}).schema;
  const lines = [`apiVersion: ${groupVersion(r)}`, `kind: ${r.kind}`, 'metadata:', '  name: example'];
  if (r.scope === 'Namespaced') lines.push('  namespace: default');
  const seen = new Set([r.shape]);
  const skip = new Set(['apiVersion', 'kind', 'metadata', 'status']);
  const required = new Set(root.required ?? []);
  for (const [name, raw] of Object.entries(root.properties ?? {})) {
    if (skip.has(name)) continue;
    // spec is shown even when optional: it is where a user starts writing.
    if (required.has(name) || name === 'spec') lines.push(...valueLines(model, name, raw, '', 1, seen));
  }
  const optionalTop = Object.keys(root.properties ?? {}).filter((k) => !skip.has(k) && k !== 'spec' && !required.has(k));
  if (optionalTop.length) lines.push(`# optional: ${optionalTop.join(', ')}`);
  return lines.join('\n') + '\n';
}
