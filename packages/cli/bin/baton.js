#!/usr/bin/env node
// Runs the TypeScript sources through tsx in the workspace; a published build points at dist.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
});
