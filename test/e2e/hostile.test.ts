// The hostile-input suite (issue 16): every case of test/fixtures/hostile/ through each of its write
// paths against a real server process (SQLite, loopback). For each: the process stays up, the
// answer is the expected status with a Status body, the secret marker appears in no answer, no
// Warning header and no line the server writes, and the server's main thread (its event loop)
// spends at most 100 ms of CPU on the write (the issue's bound on blocking the loop; a case that
// cannot meet it carries its own budget and says why). CPU time, not wall time: on these shared
// machines load alone stretches a 25 ms write to over 100 ms of wall time. A concurrent /healthz
// probe (every 20 ms, from a worker thread) is printed beside it and must never fail. A case that
// kills or stalls the server fails, and the server is restarted for the next one.

import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';
import { HealthProbe, type ProbeWindow } from './health-probe.ts';
import { mainThreadCpuUs } from './process-cpu.ts';
import { createTargets, expectationFor, loadCases, loadTargets, prepareWrite, problemsOf, secretMarker, sendWrite, type WriteResult } from './hostile-cases.ts';

/** The main-thread CPU a write may take (the issue's bound on blocking the event loop). */
const CPU_BUDGET_MS = 100;
/** The probe runs on this long after the last answer: work the server does after answering counts too. */
const PROBE_TAIL_MS = 40;
const cases = loadCases();
const targets = loadTargets();
const marker = secretMarker();

/** Everything the server processes wrote (stdout and stderr), across restarts. */
const serverOutput: string[] = [];
const summary: string[] = [];
/** Cases that carry their own probe budget, printed so that the gap stays visible. */
const exempted: string[] = [];
let s: TestServer;
let probe: HealthProbe;
let needsRestart = false;

async function startServer(): Promise<void> {
  s = await TestServer.start('sqlite');
  serverOutput.push(s.stdout);
  s.proc.stdout?.on('data', (d: Buffer) => serverOutput.push(d.toString()));
  s.proc.stderr?.on('data', (d: Buffer) => serverOutput.push(d.toString()));
  probe = new HealthProbe(s);
  await createTargets(s, targets);
}

async function restartServer(): Promise<void> {
  await probe.close();
  await s.stop();
  rmSync(s.dataDir, { recursive: true, force: true });
  await startServer();
  needsRestart = false;
}

beforeAll(startServer, 120_000);

afterAll(async () => {
  await probe?.close();
  await s?.stop();
  process.stdout.write(`\nhostile suite: case / path: status got (expected), slowest answer, server main-thread CPU, slowest /healthz probe (probes)\n${summary.join('\n')}\n`);
  if (exempted.length) process.stdout.write(`\nABOVE THE ${CPU_BUDGET_MS} ms TARGET, WITH THEIR OWN BUDGET (each case says why):\n${exempted.join('\n')}\n`);
});

describe('hostile input', () => {
  for (const c of cases) {
    describe(`${c.name}: ${c.description}`, () => {
      for (const path of c.paths) {
        it(path, async () => {
          if (needsRestart) await restartServer();
          const w = prepareWrite(c, path, targets, marker);
          const outputBefore = serverOutput.length;
          let result: WriteResult | undefined;
          let failure: unknown;
          let probing = false;
          let cpuBefore: number | undefined;
          try {
            result = await sendWrite(s, w, `${c.name}-${path}`, {
              before: () => {
                cpuBefore = mainThreadCpuUs(s.proc.pid);
                probe.start();
                probing = true;
              },
            });
          } catch (e) {
            failure = e;
          }
          if (probing) await new Promise((r) => setTimeout(r, PROBE_TAIL_MS));
          const window: ProbeWindow | undefined = probing ? await probe.stop() : undefined;
          const cpuAfter = mainThreadCpuUs(s.proc.pid);
          const cpuMs = cpuBefore !== undefined && cpuAfter !== undefined ? (cpuAfter - cpuBefore) / 1000 : undefined;
          const alive = s.proc.exitCode === null && s.proc.signalCode === null;
          if (!alive || failure !== undefined || (window?.failures ?? 0) > 0) needsRestart = true;

          const e = expectationFor(c, path);
          if (e.cpuBudgetMs !== undefined) exempted.push(`  ${c.name} / ${path}: budget ${e.cpuBudgetMs} ms, measured ${cpuMs?.toFixed(0) ?? '-'} ms of CPU`);
          const expected = Array.isArray(e.status) ? e.status.join('|') : String(e.status);
          const got = result?.answers.map((a) => a.response.status).join(',') ?? `error: ${String(failure)}`;
          const slowest = Math.max(0, ...(result?.answers.map((a) => a.ms) ?? []));
          summary.push(
            `  ${`${c.name} / ${path}`.padEnd(58)} ${got.padEnd(9)} (${expected.padEnd(15)}) ${slowest.toFixed(0).padStart(6)} ms  cpu ${cpuMs === undefined ? '     -' : `${cpuMs.toFixed(0).padStart(5)} ms`}  probe ${window ? `${window.max.toFixed(0).padStart(6)} ms (${window.count})` : '     -'}${alive ? '' : '  PROCESS DIED'}`,
          );

          expect(alive, 'the server process is still up').toBe(true);
          expect(failure, 'the write was answered').toBeUndefined();
          if (result?.setup && result.setup.status !== 201) throw new Error(`setup object refused: ${result.setup.status} ${result.setup.text.slice(0, 300)}`);
          const problems = (result?.answers ?? []).flatMap((a, i) => problemsOf(a.response, a.ms, e, marker).map((p) => (c.repeat > 1 ? `#${i + 1}: ${p}` : p)));
          if (serverOutput.slice(outputBefore).some((line) => line.includes(marker))) problems.push('the server wrote the secret value to its output');
          expect(problems).toEqual([]);
          expect(window?.failures, '/healthz probes that failed').toBe(0);
          if (cpuMs !== undefined) expect(cpuMs, 'main-thread CPU of the write (ms)').toBeLessThanOrEqual(e.cpuBudgetMs ?? CPU_BUDGET_MS);
        }, 120_000);
      }
    });
  }

  it('no line the server wrote holds the secret value', () => {
    const lines = serverOutput.join('').split('\n');
    expect(lines.filter((l) => l.includes(marker))).toEqual([]);
  });
});
