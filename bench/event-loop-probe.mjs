// Preloaded into a server process under benchmark (NODE_OPTIONS=--import=<this file>), so that the
// server needs no flag of its own: samples the process's event-loop delay with
// perf_hooks.monitorEventLoopDelay and, on each SIGUSR2, prints the histogram since the previous
// SIGUSR2 (or the start) as one stdout line `event-loop-delay {"p50":…,"p99":…,"max":…,"count":…}`
// and starts a new one. Figures are milliseconds of delay beyond the sampling interval (the
// histogram records the time between two ticks of a timer repeating every `resolution` ms).
// Plain JavaScript: it loads before tsx's loader.
// CLUSTERSPEC_ELD_RESOLUTION_MS sets the sampling resolution (default 10, Node's default).

import { monitorEventLoopDelay } from 'node:perf_hooks';

const resolution = Number(process.env.CLUSTERSPEC_ELD_RESOLUTION_MS ?? 10);
const histogram = monitorEventLoopDelay({ resolution });
histogram.enable();

process.on('SIGUSR2', () => {
  const ms = (ns) => Math.max(0, ns / 1e6 - resolution);
  const snapshot = {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    count: histogram.count,
  };
  process.stdout.write(`event-loop-delay ${JSON.stringify(snapshot)}\n`);
  histogram.reset();
});
