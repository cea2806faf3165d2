// Upstream's duration flags (--etcd-compaction-interval 5m, --shutdown-delay-duration 10s): Go's duration syntax.

/**
 * Seconds of a Go duration as upstream's flags take it ("5m", "300s", "1h30m", "0"); a bare number is
 * seconds. Undefined when malformed.
 */
export function parseDurationSeconds(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * units[m[2]];
    end = re.lastIndex;
  }
  return end === text.length && end > 0 ? total : undefined;
}
