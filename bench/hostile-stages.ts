// `npx tsx bench/hostile-stages.ts`: the main-thread CPU of each stage of a write for the hostile
// cases that cost the most (issue 16), called in-process on the code paths the server runs: body
// decode, omit-empty, managed fields (create, update, server-side apply), strategic merge patch,
// and, for scale, the JSON encode and parse of the stored object. CPU time (process.cpuUsage) of
// each call, median of `--runs`; the machine's other load inflates wall time, not these figures.
//
//   npx tsx bench/hostile-stages.ts [--runs 5] [--keys 100000] [--only name,name]

import { stringify as stringifyYaml } from 'yaml';
import { decodeJson, decodeYaml } from '../runtime/http/decode/decode.ts';
import { apply } from '../runtime/patch/apply.ts';
import { updateManagedFields } from '../runtime/patch/managed-fields.ts';
import { applyStrategicMergePatch } from '../runtime/patch/strategic-merge.ts';
import { dropEmptyOmitted } from '../runtime/registry/omit-empty.ts';
import { deepCopy } from '../runtime/json/clone.ts';
import { defs as shapes, kind } from '../runtime/patch/test-defs.ts';
import { arg } from './cli-options.ts';

const RUNS = Number(arg('runs', '5'));
const KEYS = Number(arg('keys', '100000'));
const ONLY = arg('only', '');

type Json = Record<string, unknown>;

function cpuMs(f: () => unknown): number {
  const before = process.cpuUsage();
  f();
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
}

function stage(name: string, prepare: () => () => unknown): void {
  if (ONLY && !ONLY.split(',').some((o) => name.includes(o))) return;
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = prepare(); // inputs fresh per run: stages may change them in place
    xs.push(cpuMs(run));
  }
  xs.sort((a, b) => a - b);
  process.stdout.write(`  ${name.padEnd(58)} median ${xs[xs.length >> 1].toFixed(0).padStart(5)} ms   (${xs.map((x) => x.toFixed(0)).join(' ')})\n`);
}

const now = new Date('2026-01-01T00:00:00Z');
const cmSchema = kind('ConfigMap');
const data: Json = {};
for (let i = 0; i < KEYS; i++) data[`k${i}`] = 'v';
const bigCm = (): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'hostile' }, data: { ...data } });
const smallCm = (): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'hostile', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { a: 'b' } });
const mfOpts = { manager: 'hostile', apiVersion: 'v1', now, ignoredFields: [] };
const withMf = (o: Json): Json => updateManagedFields(undefined, o, { ...mfOpts, manager: 'setup' }, cmSchema, shapes);

const jsonText = JSON.stringify(bigCm());
const yamlText = stringifyYaml(bigCm(), { lineWidth: 0 });
process.stdout.write(`hostile stages — node ${process.version}; ConfigMap of ${KEYS} keys (JSON body ${(jsonText.length / 1e6).toFixed(2)} MB, YAML ${(yamlText.length / 1e6).toFixed(2)} MB); CPU ms per call, median of ${RUNS}\n`);

stage('decode JSON body', () => () => decodeJson(jsonText));
stage('decode YAML body', () => () => decodeYaml(yamlText));
stage('omit-empty (dropEmptyOmitted)', () => {
  const o = bigCm();
  return () => dropEmptyOmitted(o, 'ConfigMap', shapes);
});
stage('managed fields: create', () => {
  const o = bigCm();
  return () => updateManagedFields(undefined, o, mfOpts, cmSchema, shapes);
});
stage('managed fields: update small -> big', () => {
  const old = withMf(smallCm());
  const o = bigCm();
  return () => updateManagedFields(old, o, mfOpts, cmSchema, shapes);
});
stage('managed fields: update big -> big (other manager)', () => {
  const old = withMf(bigCm());
  const o = bigCm();
  return () => updateManagedFields(old, o, mfOpts, cmSchema, shapes);
});
stage('server-side apply: over small', () => {
  const live = withMf(smallCm());
  const applied = bigCm();
  return () => apply(live, applied, { ...mfOpts, force: true, kind: 'ConfigMap' }, cmSchema, shapes);
});
stage('server-side apply: create', () => {
  const applied = bigCm();
  return () => apply(undefined, applied, { ...mfOpts, force: true, kind: 'ConfigMap' }, cmSchema, shapes);
});
stage('strategic merge patch: big over small', () => {
  const live = withMf(smallCm());
  const patch = bigCm();
  return () => applyStrategicMergePatch(live, patch, cmSchema, shapes);
});
const stored = withMf(bigCm());
const storedText = JSON.stringify(stored);
stage(`(scale) JSON.stringify stored object (${(storedText.length / 1e6).toFixed(2)} MB)`, () => () => JSON.stringify(stored));
stage('(scale) JSON.parse stored object', () => () => JSON.parse(storedText));
stage('(scale) deepCopy stored object', () => () => deepCopy(stored));

// A strategic merge patch reversing 5,000 CSINode drivers with $setElementOrder (smp-reorder-5000-csinode-drivers).
const csiSchema = kind('CSINode');
const DRIVERS = 5000;
const driverList = Array.from({ length: DRIVERS }, (_, i) => ({ name: `driver-${i}.csi.example.com`, nodeID: `node-${i}` }));
const csiNode = (drivers: unknown[]): Json => ({ apiVersion: 'storage.cluster.io/v1', kind: 'CSINode', metadata: { name: 'n', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { drivers } });
const reorder = { spec: { '$setElementOrder/drivers': [...driverList].reverse().map((d) => ({ name: d.name })) } };
process.stdout.write(`CSINode of ${DRIVERS} drivers, $setElementOrder reversing them\n`);
stage('strategic merge patch: reorder', () => {
  const live = updateManagedFields(undefined, csiNode(deepCopy(driverList)), { ...mfOpts, manager: 'setup' }, csiSchema, shapes);
  return () => applyStrategicMergePatch(live, reorder, csiSchema, shapes);
});
stage('managed fields: update after the reorder', () => {
  const live = updateManagedFields(undefined, csiNode(deepCopy(driverList)), { ...mfOpts, manager: 'setup' }, csiSchema, shapes);
  const next = applyStrategicMergePatch(live, reorder, csiSchema, shapes);
  return () => updateManagedFields(live, next, mfOpts, csiSchema, shapes);
});
