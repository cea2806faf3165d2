// -o junit: a testsuite per file, a testcase per object (or unreadable document/file); an invalid
// object is a <failure>, an object that could not be validated an <error>; warnings go to <system-out>.
import type { Finding, Result } from '../../../runtime/validate/findings.ts';
import type { Reporter } from './reporter.ts';

const xml = (s: string): string =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

const caseName = (r: Result): string => {
  const obj = r.kind ? `${r.kind}${r.namespace ? ` ${r.namespace}/` : ' '}${r.name ?? ''}`.trim() : 'document';
  return r.document === null ? 'file' : `${obj} (document ${r.document})`;
};

const line = (f: Finding): string => `${f.file}:${f.line}:${f.column}: ${f.field ? `${f.field}: ` : ''}${f.message} [${f.reason}]`;

function testcase(r: Result): string {
  const errors = r.findings.filter((f) => f.severity === 'error');
  const warnings = r.findings.filter((f) => f.severity === 'warning');
  const attrs = `name="${xml(caseName(r))}" classname="${xml(r.file)}" file="${xml(r.file)}" line="${r.line}"`;
  const parts: string[] = [];
  if (errors.length) {
    const tag = r.verdict === 'error' ? 'error' : 'failure';
    parts.push(`      <${tag} message="${xml(errors.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)).join('; '))}" type="${xml(errors[0].reason)}">${xml(errors.map(line).join('\n'))}</${tag}>`);
  }
  if (warnings.length) parts.push(`      <system-out>${xml(warnings.map((f) => `Warning: ${line(f)}`).join('\n'))}</system-out>`);
  return parts.length ? `    <testcase ${attrs}>\n${parts.join('\n')}\n    </testcase>` : `    <testcase ${attrs}/>`;
}

export const junitReporter: Reporter = {
  format: 'junit',
  description: 'JUnit XML: a testsuite per file, a testcase per object',
  render(report) {
    const byFile = new Map<string, Result[]>();
    for (const f of report.files) byFile.set(f, []);
    for (const r of report.results) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
    const count = (rs: Result[], v: Result['verdict']): number => rs.filter((r) => r.verdict === v).length;
    const suites = [...byFile].map(([file, rs]) =>
      `  <testsuite name="${xml(file)}" tests="${rs.length}" failures="${count(rs, 'invalid')}" errors="${count(rs, 'error')}" skipped="0">\n${rs.map(testcase).join('\n')}${rs.length ? '\n' : ''}  </testsuite>`);
    const all = report.results;
    const seconds = (report.durationMs / 1000).toFixed(3);
    return {
      out: `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="clusterspec validate" tests="${all.length}" failures="${count(all, 'invalid')}" errors="${count(all, 'error')}" time="${seconds}">\n${suites.join('\n')}${suites.length ? '\n' : ''}</testsuites>\n`,
    };
  },
};
