import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRelative, linkTargets } from './markdown-links.ts';
import { publishableDirs, ROOT } from './pack.ts';

/*
 * The READMEs users read on the npm registry page: what `npm pack` puts in each publishable
 * package's tarball. There, no repository sits beside them, so every link must be absolute, and
 * a link into this repository must name a path that exists here (or it is as dead as a
 * relative one).
 */

interface Manifest {
  name: string;
  repository?: { type?: string; url?: string; directory?: string };
  homepage?: string;
}

const dirs = publishableDirs();
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
const REPO_GIT = manifest(join(ROOT, 'packages/core')).repository?.url ?? '';
// git+https://github.com/owner/name.git -> owner/name
const REPO = /^git\+https:\/\/github\.com\/([^/]+\/[^/]+?)\.git$/.exec(REPO_GIT)?.[1] ?? '';

const work = mkdtempSync(join(tmpdir(), 'baton-readme-links-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The Markdown files in each package's tarball, as `npm pack` would publish it. */
function packedMarkdown(): { name: string; dir: string; files: string[] }[] {
  const out = execFileSync(
    'npm',
    ['pack', '--dry-run', '--json', '--ignore-scripts', '--pack-destination', work, ...dirs],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const packs = JSON.parse(out) as { name: string; files: { path: string }[] }[];
  return packs.map((pack, i) => ({
    name: pack.name,
    dir: dirs[i] as string,
    files: pack.files.map((f) => f.path).filter((path) => /\.md$/i.test(path)),
  }));
}

/** The repository path a link into this repository names, or undefined for any other URL. */
function repositoryPath(target: string): { path: string; kind: 'file' | 'dir' } | undefined {
  const url = target.split('#')[0] ?? '';
  const web = new RegExp(`^https://github\\.com/${REPO}/(blob|tree)/main/(.+)$`).exec(url);
  if (web) return { path: web[2] as string, kind: web[1] === 'blob' ? 'file' : 'dir' };
  const raw = new RegExp(`^https://raw\\.githubusercontent\\.com/${REPO}/main/(.+)$`).exec(url);
  if (raw) return { path: raw[1] as string, kind: 'file' };
  return undefined;
}

describe('published READMEs', () => {
  it('every publishable package names the same repository, with its own folder as directory', () => {
    expect(REPO).toMatch(/^[\w.-]+\/[\w.-]+$/);
    for (const dir of dirs) {
      const { name, repository, homepage } = manifest(dir);
      const folder = relative(ROOT, dir);
      expect(repository, name).toEqual({ type: 'git', url: REPO_GIT, directory: folder });
      expect(homepage, name).toBe(`https://github.com/${REPO}/tree/main/${folder}#readme`);
    }
  });

  it('the tarballs hold no relative link, and every link into the repository names a path that exists', {
    timeout: 120_000,
  }, () => {
    const packed = packedMarkdown();
    expect(packed.map((p) => p.name).sort()).toEqual(dirs.map((d) => manifest(d).name).sort());
    for (const { name, dir, files } of packed) {
      expect(files, name).toContain('README.md');
      for (const file of files) {
        const targets = linkTargets(readFileSync(join(dir, file), 'utf8'));
        expect(targets.filter(isRelative), `${name}/${file}`).toEqual([]);
        for (const target of targets) {
          const inRepo = repositoryPath(target);
          if (target.includes(REPO)) expect(inRepo, `${name}/${file}: ${target}`).toBeDefined();
          if (!inRepo) continue;
          const path = join(ROOT, decodeURIComponent(inRepo.path));
          expect(existsSync(path), `${name}/${file}: ${target}`).toBe(true);
          expect(statSync(path).isDirectory() ? 'dir' : 'file', `${name}/${file}: ${target}`).toBe(
            inRepo.kind,
          );
        }
      }
    }
  });
});

describe('linkTargets', () => {
  it('finds inline links, images, nested images, reference definitions and HTML links, not code', () => {
    const md = [
      'See [the example](../../examples/a.ts) and ![chart](./report.png).',
      '[![badge](img/b.svg)](https://example.com/x) [a link that',
      'wraps](docs/wrapped.md) and [top](#options).',
      '[ref]: ../core/README.md',
      '<a href="bench/results.md"><img src="shot.png"></a>',
      '`[not](a-link.md)`',
      '```ts',
      'const x = [y](z);',
      '```',
    ].join('\n');
    const targets = linkTargets(md);
    expect(targets.sort()).toEqual(
      [
        '../../examples/a.ts',
        './report.png',
        'img/b.svg',
        'https://example.com/x',
        'docs/wrapped.md',
        '#options',
        '../core/README.md',
        'bench/results.md',
        'shot.png',
      ].sort(),
    );
    expect(targets.filter(isRelative).sort()).toEqual(
      [
        '../../examples/a.ts',
        './report.png',
        'img/b.svg',
        'docs/wrapped.md',
        '../core/README.md',
        'bench/results.md',
        'shot.png',
      ].sort(),
    );
  });
});
