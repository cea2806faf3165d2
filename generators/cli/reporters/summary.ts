// Totals shared by the reporters: objects by verdict, findings by severity and reason.
import { countVerdicts, type RunReport } from '../../../runtime/validate/findings.ts';

export interface Summary {
  files: number;
  /** Validated objects plus documents and files that could not be validated. */
  resources: number;
  valid: number;
  invalid: number;
  /** Documents or files that could not be validated (syntax, unknown kind, unreadable, ...). */
  errors: number;
  errorFindings: number;
  warningFindings: number;
  byReason: Record<string, number>;
  durationMs: number;
}

export function summarize(report: RunReport): Summary {
  const v = countVerdicts(report.results);
  const byReason: Record<string, number> = {};
  let errorFindings = 0;
  let warningFindings = 0;
  for (const r of report.results) {
    for (const f of r.findings) {
      byReason[f.reason] = (byReason[f.reason] ?? 0) + 1;
      if (f.severity === 'error') errorFindings++;
      else warningFindings++;
    }
  }
  const sorted = Object.fromEntries(Object.entries(byReason).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { files: report.files.length, resources: report.results.length, valid: v.valid, invalid: v.invalid, errors: v.error, errorFindings, warningFindings, byReason: sorted, durationMs: Math.round(report.durationMs) };
}
