// -o json: the versioned report (apiVersion clusterspec.cluster.io/v1, kind ValidationReport), whose
// JSON Schema is report.v1.schema.json beside this file. Stable: no timings unless --summary.
import type { Reporter } from './reporter.ts';
import { summarize } from './summary.ts';

export const REPORT_API_VERSION = 'clusterspec.cluster.io/v1';

export const jsonReporter: Reporter = {
  format: 'json',
  description: 'the versioned ValidationReport (schema: generators/cli/reporters/report.v1.schema.json)',
  render(report, opts) {
    const doc = {
      apiVersion: REPORT_API_VERSION,
      kind: 'ValidationReport',
      tool: { name: 'clusterspec', version: opts.toolVersion },
      strict: report.strict,
      resources: report.results.map(({ findings, ...r }) => ({ ...r, findings: findings.length })),
      findings: report.results.flatMap((r) => r.findings),
      ...(opts.summary ? { summary: summarize(report) } : {}),
    };
    return { out: `${JSON.stringify(doc, null, 2)}\n` };
  },
};
