#!/usr/bin/env node
// Launcher of the clusterspec command line: the compiled generators/cli/main.ts of dist/, or, in the
// repository's workspace before `npm run build:packages`, the sources through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/generators/cli/main.js', import.meta.url);
const cli = existsSync(compiled)
  ? await import(compiled.href)
  : await (await import('tsx/esm/api')).tsImport('../../../generators/cli/main.ts', import.meta.url);
process.exitCode = await cli.main(process.argv.slice(2));
