// -o text: one line per invalid object in upstream's aggregate form (as kubectl prints the server's
// Invalid error), one per input problem, each led by file:line:column; warnings apart; then a count.
import type { Finding, Result } from '../../../runtime/validate/findings.ts';
import type { Reporter } from './reporter.ts';
import { summarize } from './summary.ts';

const where = (x: { file: string; line: number; column: number; document: number | null }): string =>
  `${x.file}:${x.line}:${x.column}${x.document === null ? '' : ` (document ${x.document})`}`;

/** Field errors read `field: message` as upstream's aggregate does; strict decoding errors carry the field in their message. */
const findingText = (f: Finding): string => (f.reason.startsWith('FieldValue') || f.reason === 'InternalError') && f.field ? `${f.field}: ${f.message}` : f.message;

/** Upstream's aggregate: identical texts once; one error bare, several as `[a, b]`. */
export function aggregate(findings: readonly Finding[]): string {
  const texts = [...new Set(findings.map(findingText))];
  return texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
}

function resultLine(r: Result): string | undefined {
  const errors = r.findings.filter((f) => f.severity === 'error');
  if (!errors.length) return undefined;
  if (r.verdict === 'error') return `${where(errors[0])}: ${errors[0].message}`;
  return `${where(errors[0])}: ${r.qualifiedKind} ${JSON.stringify(r.name ?? '')} is invalid: ${aggregate(errors)}`;
}

export const textReporter: Reporter = {
  format: 'text',
  description: 'a line per invalid object or input problem (file:line:column), warnings on standard error',
  render(report, opts) {
    const lines = report.results.map(resultLine).filter((l): l is string => l !== undefined);
    const warnings = report.results.flatMap((r) => r.findings.filter((f) => f.severity === 'warning').map((f) => `Warning: ${where(f)}: ${f.message}`));
    const objects = report.results.filter((r) => r.document !== null);
    const invalid = objects.filter((r) => r.verdict !== 'valid').length;
    const unread = report.results.length - objects.length;
    lines.push(`${objects.length} object${objects.length === 1 ? '' : 's'} checked, ${invalid} invalid${unread ? `, ${unread} file${unread === 1 ? '' : 's'} not read` : ''}`);
    if (opts.summary) {
      const s = summarize(report);
      lines.push(`Summary: ${s.resources} resource${s.resources === 1 ? '' : 's'} in ${s.files} file${s.files === 1 ? '' : 's'}: ${s.valid} valid, ${s.invalid} invalid, ${s.errors} not validated; ${s.errorFindings} error${s.errorFindings === 1 ? '' : 's'}, ${s.warningFindings} warning${s.warningFindings === 1 ? '' : 's'} (${s.durationMs} ms)`);
      for (const [reason, n] of Object.entries(s.byReason)) lines.push(`  ${reason}: ${n}`);
    }
    return { out: `${lines.join('\n')}\n`, ...(warnings.length ? { diagnostics: `${warnings.join('\n')}\n` } : {}) };
  },
};
