#!/usr/bin/env node
// The installed `baton` command: plain JavaScript over the built package, no loader.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
});
