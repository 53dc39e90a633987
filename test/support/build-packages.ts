import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packages = fileURLToPath(new URL('../../packages/', import.meta.url));

/** Newest modification time of the files below `dir` (0 when it does not exist). */
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
 * a missing or stale build would test old code: refuse to start and say how to build.
 * `pnpm test` builds first (turbo, a no-op when nothing changed).
 */
export default function setup() {
  const stale = readdirSync(packages).filter((name) => {
    const src = join(packages, name, 'src');
    return existsSync(src) && newest(join(packages, name, 'dist')) < newest(src);
  });
  if (stale.length > 0) {
    throw new Error(
      `[baton] [test] packages/{${stale.join(',')}}/dist is missing or older than src: run \`pnpm run build\` first (pnpm test does)`,
    );
  }
}
