// -o sarif: SARIF 2.1.0 for code scanning: a result per finding, ruleId = the finding's reason,
// located at file, line and column; object and field in the result's properties.
import { INPUT_REASONS, type Finding } from '../../../runtime/validate/findings.ts';
import type { Reporter } from './reporter.ts';
import { summarize } from './summary.ts';

const FIELD_REASONS: Record<string, string> = {
  FieldValueRequired: 'a required field is missing',
  FieldValueInvalid: 'a field has an invalid value',
  FieldValueTypeInvalid: 'a field has the wrong type',
  FieldValueNotSupported: 'a field has a value outside its enumeration',
  FieldValueForbidden: 'a field may not be set here',
  FieldValueTooLong: 'a value is too long',
  FieldValueTooMany: 'a list or map has too many items',
  FieldValueDuplicate: 'a value is given twice where it must be unique',
  FieldValueNotFound: 'a referenced value does not exist',
};

const uri = (file: string): string => (file === '<stdin>' ? 'stdin' : encodeURI(file.split('\\').join('/')));

export const sarifReporter: Reporter = {
  format: 'sarif',
  description: 'SARIF 2.1.0 (code scanning): a result per finding',
  render(report, opts) {
    const findings: Finding[] = report.results.flatMap((r) => r.findings);
    const ruleIds = [...new Set(findings.map((f) => f.reason))].sort();
    const describe = (id: string): string => FIELD_REASONS[id] ?? (INPUT_REASONS as Record<string, string>)[id] ?? id;
    const index = new Map(ruleIds.map((id, i) => [id, i]));
    const doc = {
      $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
      version: '2.1.0',
      runs: [{
        tool: { driver: { name: 'clusterspec', version: opts.toolVersion, rules: ruleIds.map((id) => ({ id, shortDescription: { text: describe(id) } })) } },
        results: findings.map((f) => ({
          ruleId: f.reason,
          ruleIndex: index.get(f.reason),
          level: f.severity,
          message: { text: f.field && f.reason.startsWith('FieldValue') ? `${f.field}: ${f.message}` : f.message },
          locations: [{ physicalLocation: { artifactLocation: { uri: uri(f.file) }, region: { startLine: f.line, startColumn: f.column } } }],
          properties: {
            document: f.document,
            ...(f.apiVersion ? { apiVersion: f.apiVersion } : {}),
            ...(f.kind ? { kind: f.kind } : {}),
            ...(f.namespace ? { namespace: f.namespace } : {}),
            ...(f.name ? { name: f.name } : {}),
            field: f.field,
          },
        })),
        ...(opts.summary ? { properties: { summary: summarize(report) } } : {}),
      }],
    };
    return { out: `${JSON.stringify(doc, null, 2)}\n` };
  },
};
