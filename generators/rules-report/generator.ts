// out/rules: the catalogue of every rule in spec/ (where it sits, what it says, whether the
// validators check it and whether the CRD bodies carry it as CEL), and the list of rules that
// nothing in out/ enforces, so no documented rule is dropped silently.
import type { RuleSpec, Schema } from '../../runtime/schema/types.ts';
import type { Model } from '../model/model.ts';
import { visitSchema } from '../model/check.ts';
import type { Generator, OutputFile } from '../output.ts';
import { describeRule, lowerRule } from '../rules.ts';
import { crdFor } from '../crds/generator.ts';

interface Row {
  shape: string;
  path: string;
  rule: RuleSpec | { rule: 'cel'; text: string; source?: string };
  describe: string;
  validator: string;
  crd: string;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function schemaPath(path: Array<string | number>): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const p = path[i];
    if (p === 'properties') out += `.${String(path[++i])}`;
    else if (p === 'items') out += '[*]';
    else if (p === 'additionalProperties') out += '[*]';
  }
  return out || '.';
}

function collectRows(model: Model): Row[] {
  const rows: Row[] = [];
  for (const shape of model.shapes.values()) {
    visitSchema(shape.schema, [], (node: Schema, path) => {
      const at = schemaPath(path);
      const rules: RuleSpec[] = [...(node['x-cluster-rules'] ?? [])];
      if (node['x-cluster-immutable']) rules.push({ rule: 'immutable', source: node['x-cluster-source'] });
      for (const rule of rules) {
        const lowered = rule.rule === 'note' ? { reason: 'not checked by a validator' } : lowerRule(rule, node);
        rows.push({
          shape: shape.name,
          path: at,
          rule,
          describe: describeRule(rule),
          validator: rule.rule === 'note' ? `no (${String(rule.enforcedBy ?? 'unassigned')})` : 'yes',
          crd: 'cel' in lowered ? 'yes' : `no: ${lowered.reason}`,
        });
      }
      for (const v of node['x-cluster-validations'] ?? []) {
        rows.push({ shape: shape.name, path: at, rule: { rule: 'cel', text: v.rule }, describe: v.message ?? `failed rule: ${v.rule}`, validator: 'yes', crd: 'yes' });
      }
    });
  }
  return rows;
}

export const rulesReportGenerator: Generator = {
  name: 'rules-report',
  generate(model: Model): OutputFile[] {
    const rows = collectRows(model);
    const line = (r: Row) => `| ${r.shape} | \`${r.path}\` | ${r.rule.rule} | ${cell(r.describe)} | ${cell(String(r.rule.source ?? ''))} | ${r.validator} | ${cell(r.crd)} |`;
    const head = '| shape | field | rule | meaning | source | validator | CRD CEL |\n|---|---|---|---|---|---|---|';
    const catalog = `# Rules of spec/\n\nEvery rule written in spec/ (x-cluster-rules, x-cluster-immutable, x-cluster-validations): ${rows.length} in all.\n\n${head}\n${rows.map(line).join('\n')}\n`;
    const open = rows.filter((r) => r.validator !== 'yes');
    const dropped = model.resources.flatMap((r) => crdFor(model, r).unlowered.map((u) => ({ r, u })));
    const droppedLines = dropped.map(({ r, u }) =>
      `| ${r.kind} | \`${u.path}\` | ${u.rule.rule === 'cel' ? `CEL \`${cell(String(u.rule.text))}\`` : u.rule.rule} | ${cell(u.reason)} |`);
    const unenforced = `# Rules not enforced by the generated validators or not carried by the CRD bodies\n\n` +
      `## Enforced elsewhere or not at all (${open.length})\n\nThese rules are recorded in spec/ as notes; the column says who enforces them (a server strategy, a controller, admission, the node agent or the client).\n\n${head}\n${open.map(line).join('\n')}\n\n` +
      `## Checked by the validators but left out of the CRD bodies in out/crds (${dropped.length})\n\n` +
      `Either CEL cannot express the rule, or the server would refuse it in a CRD: its estimated cost over unbounded strings, lists or maps is above a CRD rule's budget.\n\n` +
      `| kind | field | rule | why |\n|---|---|---|---|\n${droppedLines.join('\n')}\n`;
    return [
      { path: 'rules/catalog.md', content: catalog },
      { path: 'rules/unenforced.md', content: unenforced },
    ];
  },
};
