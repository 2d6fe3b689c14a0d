#!/usr/bin/env node
// The `toolrun` command (package.json "bin"): see src/cli/main.ts.
import { runCli } from '../cli/main.js';

await runCli(process.argv.slice(2));
