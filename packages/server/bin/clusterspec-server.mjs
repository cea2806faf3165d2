#!/usr/bin/env node
// Launcher of the API server (the compiled runtime/cli.ts; it restarts itself once with a larger V8 stack).
import '../dist/runtime/cli.js';
