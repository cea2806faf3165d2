#!/usr/bin/env node
// Launcher of the clusterspec command line: runs generators/cli/main.ts through tsx.
import { tsImport } from 'tsx/esm/api';

const cli = await tsImport('../generators/cli/main.ts', import.meta.url);
process.exitCode = await cli.main(process.argv.slice(2));
