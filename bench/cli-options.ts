// Command-line options shared by the load benchmarks that drive a test server (admission, crd-rules).

/** `--name value` from the command line, or `def`. */
export function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : def;
}

/** Creates per side and round, concurrent requests, rounds (interleaved), storage backend of the server. */
export const loadOptions = {
  n: Number(arg('n', '2000')),
  concurrency: Number(arg('concurrency', '16')),
  rounds: Number(arg('rounds', '3')),
  storage: arg('storage', 'memory') as 'memory' | 'sqlite',
};
