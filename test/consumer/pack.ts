import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports?: Record<string, Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface PackedPackage {
  name: string;
  /** The package's folder in this repository. */
  dir: string;
  /** Absolute path of the `.tgz` that `pnpm pack` wrote. */
  tarball: string;
  /** The package.json inside the tarball (what npm would publish). */
  manifest: PackageManifest;
  /** Every path in the tarball, relative to its `package/` root. */
  files: string[];
}

/** The workspace's publishable packages: `packages/*` that are not private. */
export function publishableDirs(): string[] {
  return readdirSync(join(ROOT, 'packages'))
    .map((name) => join(ROOT, 'packages', name))
    .filter((dir) => {
      try {
        return !(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest).private;
      } catch {
        return false;
      }
    });
}

/**
 * The pnpm that runs this test (pnpm sets npm_execpath for its scripts), else the version the
 * repository pins in `packageManager`, through npx.
 */
function pnpm(): { command: string; args: string[] } {
  const execPath = process.env.npm_execpath ?? '';
  if (/pnpm/.test(basename(execPath))) {
    // pnpm ships as a JavaScript entry point or (since v11) as a native executable.
    return /\.[cm]?js$/.test(execPath)
      ? { command: process.execPath, args: [execPath] }
      : { command: execPath, args: [] };
  }
  const { packageManager } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    packageManager: string;
  };
  return { command: 'npx', args: ['-y', packageManager] };
}

/**
 * Packs one package as it would be published: `pnpm pack` replaces `workspace:` ranges and
 * applies `publishConfig`. Its `prepack` (a clean build) is not run here: it would delete
 * `dist` under tests running in the other worker. The global setup has already built every
 * stale package, and the test checks that each package has that `prepack`.
 */
export function pack(dir: string, destination: string): PackedPackage {
  const { command, args } = pnpm();
  const out = execFileSync(
    command,
    [...args, 'pack', '--ignore-scripts', '--pack-destination', destination],
    {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const tarball = out
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .findLast((line) => line.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack in ${dir} named no tarball:\n${out}`);
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((path) => path.replace(/^package\//, ''));
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
  ) as PackageManifest;
  return { name: manifest.name, dir, tarball, manifest, files };
}

/** Every file a manifest points at (main, types, bin, each export condition), without `./`. */
export function manifestTargets(manifest: PackageManifest): string[] {
  const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin ?? {})];
  for (const conditions of Object.values(manifest.exports ?? {})) targets.push(...Object.values(conditions));
  return [...new Set(targets.filter((t): t is string => typeof t === 'string'))].map((t) =>
    t.replace(/^\.\//, ''),
  );
}
