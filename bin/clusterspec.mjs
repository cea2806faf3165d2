#!/usr/bin/env node
// Launcher of the clusterspec command line: runs runtime/validate-cli.ts through tsx.
import { tsImport } from 'tsx/esm/api';

const cli = await tsImport('../runtime/validate-cli.ts', import.meta.url);
process.exitCode = cli.main(process.argv.slice(2));
