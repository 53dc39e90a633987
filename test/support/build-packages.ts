import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const packages = join(root, 'packages');

/** Newest modification time of the non-test files below `dir` (0 when it does not exist). */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let time = 0;
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (name.endsWith('.test.ts')) continue;
    time = Math.max(time, statSync(join(dir, name)).mtimeMs);
  }
  return time;
}

/**
 * Vitest global setup. Unit tests import the TypeScript sources, but some tests run what
 * users install (the `baton` bin over `dist`, the packed tarballs in fresh npm projects), so
 * a missing or stale build would test old code. `pnpm test` builds first (turbo); a bare
 * `vitest` run rebuilds here whatever is stale, core first (the others' types build on it).
 */
export default function setup() {
  const names = readdirSync(packages).sort((a, b) => Number(b === 'core') - Number(a === 'core'));
  for (const name of names) {
    const dir = join(packages, name);
    if (!existsSync(join(dir, 'tsconfig.build.json'))) continue;
    if (newest(join(dir, 'dist')) >= newest(join(dir, 'src'))) continue;
    console.warn(`[baton] [test] packages/${name}/dist is missing or older than src: building it`);
    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
}
