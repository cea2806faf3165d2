// What every report format implements: the run in, text out (one format per file of this folder).
import type { RunReport } from '../../../runtime/validate/findings.ts';

export interface ReportOptions {
  /** --summary: the totals and counts by reason (in the text and JSON reports; SARIF run properties). */
  summary: boolean;
  toolVersion: string;
}

export interface Rendered {
  /** The report. */
  out: string;
  /** Warnings a terminal shows apart (standard error when the report goes to standard output; appended in a file). */
  diagnostics?: string;
}

export interface Reporter {
  format: string;
  description: string;
  render(report: RunReport, opts: ReportOptions): Rendered;
}
