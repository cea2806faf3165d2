// Renders a kind's field tree: per field its path, type, required, default, enum, format, limits,
// immutability, list type and keys, feature gate, deprecation and rules; children collapsed in
// <details> (the script opens them for deep links and expand-all). Every field's id is its path.
import type { Schema } from '../../runtime/schema/types.ts';
import type { FeatureGate, Model } from '../model/model.ts';
import type { AppearsIn } from './appears-in.ts';
import { resolveNode, type FieldNode } from './field-model.ts';
import { attr, esc } from './html.ts';
import { isImmutable, rulesOf, type DocumentedRule } from './rules-in-words.ts';
import { fieldAnchor, kindPagePath, KIND_PAGE_ROOT } from './site-paths.ts';

export interface TreeContext {
  model: Model;
  gates: Map<string, FeatureGate>;
  appearsIn: Map<string, AppearsIn>;
  /** Kind of the page (left out of its own "appears in"). */
  kind: string;
}

/** Text with `code` spans, escaped. */
export function prose(text: string): string {
  return esc(text.trim()).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const json = (v: unknown): string => JSON.stringify(v);

function baseType(element: Schema, shape: string | undefined): string {
  if (shape) return shape;
  if (element['x-cluster-int-or-string']) return 'int-or-string';
  if (element['x-cluster-preserve-unknown-fields'] && !element.properties) return 'object (any fields)';
  return element.type ?? 'any';
}

export function typeLabel(model: Model, node: FieldNode): string {
  let s = node.schema;
  let prefix = '';
  for (let level = 0; level < node.elementSuffix.length / 3; level++) {
    if (s.type === 'array' && s.items) {
      prefix += '[]';
      s = resolveNode(model, s.items).schema;
    } else if (typeof s.additionalProperties === 'object') {
      prefix += 'map[string]';
      s = resolveNode(model, s.additionalProperties).schema;
    }
  }
  return prefix + baseType(node.element, node.shape);
}

/** The limits a schema node sets, in words. */
export function limitsOf(s: Schema): string[] {
  const out: string[] = [];
  if (s.minimum !== undefined) out.push(`${s.exclusiveMinimum ? '>' : '≥'} ${s.minimum}`);
  if (s.maximum !== undefined) out.push(`${s.exclusiveMaximum ? '<' : '≤'} ${s.maximum}`);
  if (s.multipleOf !== undefined) out.push(`multiple of ${s.multipleOf}`);
  if (s.minLength !== undefined) out.push(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined) out.push(`at most ${s.maxLength} characters`);
  if (s.pattern !== undefined) out.push(`matches ${s.pattern}`);
  if (s.minItems !== undefined) out.push(`at least ${s.minItems} items`);
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  if (s.uniqueItems) out.push('unique items');
  if (s.minProperties !== undefined) out.push(`at least ${s.minProperties} entries`);
  if (s.maxProperties !== undefined) out.push(`at most ${s.maxProperties} entries`);
  return out;
}

function facts(ctx: TreeContext, node: FieldNode): Array<[string, string]> {
  const s = node.schema;
  const el = node.element;
  const listed = el !== s;
  const rows: Array<[string, string]> = [];
  const code = (v: string): string => `<code>${esc(v)}</code>`;
  if (s.default !== undefined) rows.push(['default', code(json(s.default))]);
  if (listed && el.default !== undefined) rows.push(['item default', code(json(el.default))]);
  if (s['x-cluster-behavior-default'] !== undefined) rows.push(['if unset', `${code(json(s['x-cluster-behavior-default']))} (applied by its consumer, not stored)`]);
  const en = s.enum ?? (listed ? el.enum : undefined);
  if (en) rows.push([listed && !s.enum ? 'item values' : 'values', en.map((v) => code(json(v))).join(' ')]);
  const format = s.format ?? (listed ? el.format : undefined);
  if (format) rows.push(['format', code(format)]);
  const limits = limitsOf(s);
  if (limits.length) rows.push(['limits', esc(limits.join('; '))]);
  const itemLimits = listed ? limitsOf(el) : [];
  if (itemLimits.length) rows.push(['each item', esc(itemLimits.join('; '))]);
  const listType = s['x-cluster-list-type'];
  if (listType) {
    const keys = s['x-cluster-list-map-keys'];
    rows.push(['list type', `${code(listType)}${keys?.length ? ` keyed by ${keys.map(code).join(', ')}` : ''}`]);
  }
  if (s['x-cluster-map-type']) rows.push(['map type', code(s['x-cluster-map-type'])]);
  if (s['x-cluster-patch-strategy']) {
    const key = s['x-cluster-patch-merge-key'];
    rows.push(['patch strategy', `${code(s['x-cluster-patch-strategy'])}${key ? ` on ${code(key)}` : ''}`]);
  }
  const gate = s['x-cluster-feature-gate'];
  if (gate) {
    const g = ctx.gates.get(gate);
    rows.push(['feature gate', `${code(gate)}${g ? ` (${g.stage}, ${g.default ? 'on' : 'off'} by default)` : ''}`]);
  }
  if (s['x-cluster-deprecated'] || s.deprecated) rows.push(['deprecated', s['x-cluster-deprecated'] ? prose(s['x-cluster-deprecated']) : 'yes']);
  if (s.nullable) rows.push(['nullable', 'yes']);
  if (s['x-cluster-write-only']) rows.push(['write-only', 'accepted on write, never returned']);
  if (s['x-cluster-embedded-resource']) rows.push(['embedded', 'a whole object with apiVersion, kind and metadata']);
  if (el['x-cluster-preserve-unknown-fields']) rows.push(['unknown fields', 'kept']);
  if (node.shape) rows.push(['appears in', appearsInLinks(ctx, node.shape)]);
  if (s['x-cluster-source']) rows.push(['source', esc(s['x-cluster-source'])]);
  return rows;
}

function appearsInLinks(ctx: TreeContext, shape: string): string {
  const a = ctx.appearsIn.get(shape);
  const kinds = (a?.kinds ?? []).filter((r) => r.kind !== ctx.kind);
  const links = kinds.map((r) => `<a href="${KIND_PAGE_ROOT}${kindPagePath(r)}">${esc(r.kind)}</a>`);
  return `${esc(shape)}${links.length ? `, also in ${links.join(', ')}` : ''}`;
}

export function renderRules(rules: DocumentedRule[], label = ''): string {
  if (!rules.length) return '';
  const items = rules.map((r) => {
    const parts = [`<span class="rk">${esc(r.kind)}</span> ${label}${prose(r.words)}`];
    if (r.enforcedBy) parts.push(`<span class="note">enforced by the ${esc(r.enforcedBy)}, not by the validators</span>`);
    if (r.cel !== undefined) {
      const extra = [
        // A message the words already are is not repeated.
        r.message && r.message !== r.words ? `message <q>${esc(r.message)}</q>` : '',
        r.messageExpression ? `messageExpression <code>${esc(r.messageExpression)}</code>` : '',
        r.reason ? `reason ${esc(r.reason)}` : '',
        r.fieldPath ? `fieldPath <code>${esc(r.fieldPath)}</code>` : '',
      ].filter(Boolean);
      parts.push(`<pre class="cel">${esc(r.cel)}</pre>${extra.length ? `<span class="celm">${extra.join('; ')}</span>` : ''}`);
    } else if (r.notCel) parts.push(`<span class="note">no CEL form: ${esc(r.notCel)}</span>`);
    return `<li>${parts.join(' ')}</li>`;
  });
  return `<ul class="rules">${items.join('')}</ul>`;
}

function badges(node: FieldNode): string {
  const s = node.schema;
  const b: string[] = [];
  if (node.required) b.push('<span class="b req">required</span>');
  if (isImmutable(s)) b.push('<span class="b imm">immutable</span>');
  if (s['x-cluster-feature-gate']) b.push('<span class="b gate">gated</span>');
  if (s['x-cluster-deprecated'] || s.deprecated) b.push('<span class="b dep">deprecated</span>');
  return b.join('');
}

function renderField(ctx: TreeContext, node: FieldNode): string {
  const id = fieldAnchor(node.path);
  const rows = facts(ctx, node)
    .map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`)
    .join('');
  const rules = renderRules(rulesOf(node.schema)) + (node.element !== node.schema ? renderRules(rulesOf(node.element), 'each item: ') : '');
  const desc = node.schema.description ? `<p>${prose(node.schema.description)}</p>` : '';
  const kids = node.children.length
    ? `<details class="kids"><summary>${node.children.length} field${node.children.length === 1 ? '' : 's'}</summary>${node.children.map((c) => renderField(ctx, c)).join('')}</details>`
    : '';
  const rec = node.recursesTo !== undefined ? `<p class="rec">The same shape as <a href="#${attr(fieldAnchor(node.recursesTo))}">${esc(node.recursesTo || ctx.kind)}</a>, not expanded again.</p>` : '';
  return `<div class="f" id="${attr(id)}"><div class="h"><a class="n" href="#${attr(id)}">${esc(node.name)}</a> <span class="t">${esc(typeLabel(ctx.model, node))}</span>${badges(node)}</div><div class="d"><code class="p">${esc(node.path)}</code>${desc}${rows ? `<dl>${rows}</dl>` : ''}${rules}</div>${kids}${rec}</div>\n`;
}

export function renderFieldTree(ctx: TreeContext, nodes: FieldNode[]): string {
  return `<div class="tree">${nodes.map((n) => renderField(ctx, n)).join('')}</div>`;
}
