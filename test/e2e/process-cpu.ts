// CPU time of another process from /proc (Linux): what benchmarks and the hostile suite measure
// instead of wall time, which the load of a shared machine inflates.

import { existsSync, readFileSync } from 'node:fs';

/** Linux reports utime and stime in clock ticks of USER_HZ = 100 per second. */
const CLOCK_TICK_US = 10_000;

function statCpuUs(statPath: string): number | undefined {
  if (!existsSync(statPath)) return undefined;
  const stat = readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the command name may hold spaces
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_US;
}

/** utime + stime of a process, all its threads, in µs (10 ms resolution); undefined without /proc. */
export function processCpuUs(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : statCpuUs(`/proc/${pid}/stat`);
}

/** utime + stime of a process's main thread (a Node server's event loop) in µs; undefined without /proc. */
export function mainThreadCpuUs(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : statCpuUs(`/proc/${pid}/task/${pid}/stat`);
}

/** utime + stime of this process's waited-for children (cutime + cstime), in µs; undefined without /proc. */
export function waitedChildrenCpuUs(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * CLOCK_TICK_US;
}
