// `clusterspec validate` on bad and strict input, table-driven: each case of test/fixtures/validate/
// holds its inputs and expected.yaml (arguments, exit status, every finding with file, document,
// line and column, verdict counts, text lines). One run per case writes all four formats
// (text to standard output, json, junit and sarif to files); each is checked against the same expectations,
// and the JSON report against its published JSON Schema with Ajv.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../generators/cli/main.ts';
import type { CliIO } from '../../generators/cli/command.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'validate');
const schema = JSON.parse(readFileSync(join(ROOT, 'generators/cli/reporters/report.v1.schema.json'), 'utf8')) as object;
const validateReport = new Ajv({ allErrors: true, strict: false }).compile(schema);
const tmp = mkdtempSync(join(tmpdir(), 'clusterspec-validate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface ExpectedFinding {
  file: string;
  document: number | null;
  line: number;
  column: number;
  reason: string;
  severity: 'error' | 'warning';
  field?: string;
}

interface Case {
  name: string;
  setup?: 'symlink-loop' | 'large-file';
  args: string[];
  exit: number;
  findings: ExpectedFinding[];
  verdicts: { valid: number; invalid: number; error: number };
  text?: string[];
  stderr?: string[];
}

const VALID_CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok, namespace: default}\n';

const cases: Case[] = readdirSync(FIXTURES).sort().map((name) => ({ name, ...(parse(readFileSync(join(FIXTURES, name, 'expected.yaml'), 'utf8')) as Omit<Case, 'name'>) }));

/** A copy of the case folder to run in (reports are written there), with the inputs the setup makes. */
function prepare(c: Case): string {
  const dir = join(tmp, c.name);
  cpSync(join(FIXTURES, c.name), dir, { recursive: true });
  if (c.setup === 'symlink-loop') {
    mkdirSync(join(dir, 'dir'));
    writeFileSync(join(dir, 'dir', 'configmap.yaml'), VALID_CONFIGMAP);
    symlinkSync('.', join(dir, 'dir', 'loop'));
    symlinkSync('self.yaml', join(dir, 'dir', 'self.yaml'));
  }
  if (c.setup === 'large-file') {
    writeFileSync(join(dir, 'small.yaml'), VALID_CONFIGMAP);
    const doc = `${VALID_CONFIGMAP}data: {k: "${'x'.repeat(1000)}"}\n---\n`;
    writeFileSync(join(dir, 'big.yaml'), doc.repeat(Math.ceil((50 * 1024 * 1024) / doc.length)));
  }
  return dir;
}

async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), readStdin: () => '', cwd };
  const code = await main(['validate', ...args], io);
  return { code, stdout, stderr };
}

/** Reasons that leave a document or file unvalidated: the text report's line is that finding's own. */
const NOT_VALIDATED = new Set(['YAMLSyntaxError', 'NotAnObject', 'MissingTypeMeta', 'UnknownKind', 'FileTooLarge', 'Unreadable', 'SymlinkLoop']);

const lines = (s: string): string[] => s.split('\n').filter(Boolean);

describe('clusterspec validate: bad input and strict decoding, in every format', () => {
  it.each(cases)('$name', async (c) => {
    const dir = prepare(c);
    const r = await run([...c.args, '-o', 'text', '-o', 'json=reports/report.json', '-o', 'junit=reports/report.xml', '-o', 'sarif=reports/report.sarif', '--summary'], dir);
    expect(r.code, r.stderr).toBe(c.exit);

    // JSON: valid against the published schema; every finding, in order, with its location.
    const report = JSON.parse(readFileSync(join(dir, 'reports/report.json'), 'utf8'));
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.findings).toHaveLength(c.findings.length);
    c.findings.forEach((f, i) => expect(report.findings[i]).toMatchObject(f));
    expect({ valid: report.summary.valid, invalid: report.summary.invalid, error: report.summary.errors }).toEqual(c.verdicts);

    // Text: the expected lines (the summary lines follow them).
    if (c.text) expect(lines(r.stdout).slice(0, c.text.length)).toEqual(c.text);
    for (const f of c.findings.filter((x) => x.severity === 'error' && NOT_VALIDATED.has(x.reason))) expect(r.stdout).toContain(`${f.file}:${f.line}:${f.column}`);
    if (c.stderr) expect(lines(r.stderr)).toEqual(c.stderr);

    // JUnit: the counts, and each finding's file:line:column in its failure or error.
    const junit = readFileSync(join(dir, 'reports/report.xml'), 'utf8');
    expect(junit).toMatch(new RegExp(`<testsuites name="clusterspec validate" tests="${c.verdicts.valid + c.verdicts.invalid + c.verdicts.error}" failures="${c.verdicts.invalid}" errors="${c.verdicts.error}"`));
    for (const f of c.findings) expect(junit).toContain(`${f.file}:${f.line}:${f.column}: `);

    // SARIF: a result per finding, at its file, line and column.
    const sarif = JSON.parse(readFileSync(join(dir, 'reports/report.sarif'), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    const results = sarif.runs[0].results as Array<{ ruleId: string; level: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }> }>;
    expect(results.map((x) => [x.ruleId, x.level, x.locations[0].physicalLocation.artifactLocation.uri, x.locations[0].physicalLocation.region.startLine, x.locations[0].physicalLocation.region.startColumn]))
      .toEqual(c.findings.map((f) => [f.reason, f.severity, f.file, f.line, f.column]));
  });
});

describe('clusterspec validate: outputs and exit statuses', () => {
  const cm = join(FIXTURES, 'strict-fields', 'configmap.yaml');
  it.each([
    { name: 'two formats to standard output', args: ['-o', 'text', '-o', 'json', cm], code: 2, stderr: 'only one -o format can go to standard output' },
    { name: 'an unknown format', args: ['-o', 'tap', cm], code: 2, stderr: 'unknown output format "tap"' },
    { name: 'a FILE that does not exist', args: ['nope.yaml'], code: 2, stderr: 'nope.yaml: no such file or directory' },
    { name: 'no FILE', args: ['--strict'], code: 2, stderr: 'no FILE given' },
    { name: 'a bad --max-file-size', args: ['--max-file-size', '1MB', cm], code: 2, stderr: '--max-file-size is a number of bytes' },
  ])('$name: exit $code', async ({ args, code, stderr }) => {
    const r = await run(args, tmp);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(stderr);
  });

  it('a report that cannot be written is an internal error: exit 3', async () => {
    mkdirSync(join(tmp, 'a-directory'), { recursive: true });
    const r = await run(['-o', 'text', '-o', `junit=${join(tmp, 'a-directory')}`, cm], tmp);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^internal error: .*EISDIR/m);
  });

  it('json to standard output, text to a file; --summary counts by reason', async () => {
    const r = await run(['-o', 'json', '-o', `text=${join(tmp, 'out.txt')}`, '--summary', '--strict', cm], tmp);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ apiVersion: 'clusterspec.cluster.io/v1', kind: 'ValidationReport', strict: true, summary: { byReason: { DuplicateField: 1, UnknownField: 1 } } });
    expect(validateReport(report)).toBe(true);
    const text = readFileSync(join(tmp, 'out.txt'), 'utf8');
    expect(text).toMatch(/^Summary: 1 resource in 1 file: 0 valid, 1 invalid, 0 not validated; 2 errors, 0 warnings \(\d+ ms\)$/m);
  });

  it('standard input ("-") in a multi-document stream', async () => {
    let stdout = '';
    const io: CliIO = { stdout: (s) => (stdout += s), stderr: () => {}, readStdin: () => `${VALID_CONFIGMAP}---\n${VALID_CONFIGMAP.replace('name: ok', 'name: Bad')}`, cwd: tmp };
    expect(await main(['validate', '-o', 'json', '-'], io)).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.findings).toEqual([expect.objectContaining({ file: '<stdin>', document: 1, line: 7, column: 18, field: 'metadata.name', reason: 'FieldValueInvalid', kind: 'ConfigMap', name: 'Bad', namespace: 'default' })]);
  });
});
