#!/usr/bin/env node
// Launcher of the clusterspec command line: the compiled runtime/validate-cli.ts of dist/, or, in the
// repository's workspace before `npm run build:packages`, the sources through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/runtime/validate-cli.js', import.meta.url);
const cli = existsSync(compiled)
  ? await import(compiled.href)
  : await (await import('tsx/esm/api')).tsImport('../../../runtime/validate-cli.ts', import.meta.url);
process.exitCode = cli.main(process.argv.slice(2));
