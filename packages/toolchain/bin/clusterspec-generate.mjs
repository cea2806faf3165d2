#!/usr/bin/env node
// Launcher of the generators: clusterspec-generate --root DIR [--check] compiles DIR/spec into DIR/out.
import '../dist/generators/cli.js';
