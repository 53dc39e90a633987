import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type {} from '../support/postgres-server.ts'; // its ProvidedContext
import { skipUnless } from '../support/skip-unless.ts';
import { manifestTargets, type PackedPackage, pack, publishableDirs, ROOT } from './pack.ts';
import { CONSUMER_PROJECTS, type ConsumerProject } from './projects.ts';
import { quickstart, withMockModel } from './snippets.ts';

/*
 * What a user gets from `npm install`: every publishable package is packed as it would be
 * published, checked by publint and @arethetypeswrong/cli, installed with npm into fresh
 * projects next to the real frameworks (the versions this repository uses and the lowest its
 * peer ranges admit), and each package README's quickstart runs there on plain Node, with
 * no TypeScript loader installed, and type-checks under `nodenext` and `bundler` resolution.
 */

const run = promisify(execFile);
/** An npm install from a cold cache, a type-check and a run, with several projects at once on 2 cores. */
const INSTALL_TIMEOUT = 600_000;
const work = mkdtempSync(join(tmpdir(), 'baton-consumer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const tsc = join(ROOT, 'node_modules/.bin/tsc');
// npm and the snippets run on the Node that runs this test (the repository's Node 22).
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

let packed: PackedPackage[] = [];
beforeAll(() => {
  const destination = join(work, 'tarballs');
  mkdirSync(destination);
  packed = publishableDirs().map((dir) => pack(dir, destination));
}, 300_000);

const tarball = (name: string) => {
  const found = packed.find((p) => p.name === name);
  if (!found) throw new Error(`${name} was not packed`);
  return `file:${found.tarball}`;
};

async function sh(command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      env: { ...env, ...extraEnv },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      output: `${e.stdout ?? ''}${e.stderr ?? e.message}`,
    };
  }
}

/** A fresh npm project with the given Baton tarballs and registry packages installed. */
async function npmProject(
  name: string,
  baton: string[],
  registry: Record<string, string>,
  flags: string[] = [],
): Promise<string> {
  const dir = join(work, name.replace(/[^a-z0-9]+/gi, '-'));
  mkdirSync(dir);
  const dependencies: Record<string, string> = { ...registry, '@types/node': '22.20.7' };
  for (const pkg of baton) dependencies[pkg] = tarball(pkg);
  // Nested `@baton/core@^0.1.0` (and the like) must resolve to the tarballs too, not the registry.
  const overrides = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies, overrides }, null, 2),
  );
  const install = await sh('npm', ['install', '--prefer-offline', '--loglevel=error', ...flags], dir);
  if (install.code !== 0) throw new Error(`npm install in ${name} failed:\n${install.output}`);
  return dir;
}

/** tsconfig for one resolution mode, with nothing but what a consumer would set. */
function writeTsconfig(dir: string, mode: 'nodenext' | 'bundler', files: string[]) {
  const compilerOptions =
    mode === 'nodenext'
      ? { module: 'nodenext', moduleResolution: 'nodenext' }
      : { module: 'preserve', moduleResolution: 'bundler' };
  writeFileSync(
    join(dir, `tsconfig.${mode}.json`),
    JSON.stringify({
      compilerOptions: {
        ...compilerOptions,
        target: 'es2023',
        lib: ['es2023'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      files,
    }),
  );
}

describe('packed packages', () => {
  it('packs every publishable package with what its exports name, built JavaScript only, no workspace: ranges', () => {
    expect(packed.map((p) => p.name).sort()).toEqual([
      '@baton/ai-sdk',
      '@baton/cli',
      '@baton/core',
      '@baton/langgraph',
      '@baton/mastra',
      '@baton/postgres',
      '@baton/testing',
    ]);
    for (const { name, dir, manifest, files } of packed) {
      for (const target of manifestTargets(manifest)) expect(files, `${name}: ${target}`).toContain(target);
      for (const required of ['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json'])
        expect(files, `${name}: ${required}`).toContain(required);
      expect(
        files.filter((f) => f.startsWith('src/') || (f.endsWith('.ts') && !f.endsWith('.d.ts'))),
        name,
      ).toEqual([]);
      expect(
        files.filter((f) => /\.test\.|\.map$/.test(f)),
        name,
      ).toEqual([]);
      const ranges = {
        ...manifest.dependencies,
        ...manifest.peerDependencies,
        ...manifest.optionalDependencies,
      };
      for (const [dep, range] of Object.entries(ranges))
        expect(range, `${name} -> ${dep}`).not.toMatch(/workspace:/);
      expect(JSON.stringify(manifest.exports), name).not.toContain('@baton/source');
      // Publishing builds first (the packing above skipped it; see pack.ts).
      const scripts = (
        JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
      ).scripts;
      expect(scripts?.prepack, name).toBe('pnpm run build');
      expect(scripts?.build, name).toMatch(/rmSync\('dist'.*&& tsc -p tsconfig\.build\.json$/);
    }
  });

  it('the root README carries each adapter quickstart verbatim, so what it shows is what runs here', () => {
    const root = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const readme of [
      'packages/ai-sdk/README.md',
      'packages/langgraph/README.md',
      'packages/mastra/README.md',
    ])
      expect(root, readme).toContain(quickstart(readme).code);
  });

  it('passes publint (strict) on every tarball', { timeout: 120_000 }, async () => {
    for (const { name, tarball: file } of packed) {
      const { code, output } = await sh(
        join(ROOT, 'node_modules/.bin/publint'),
        ['run', file, '--strict'],
        ROOT,
      );
      expect(output, name).toContain('All good!');
      expect(code, `${name}\n${output}`).toBe(0);
    }
  });

  it('passes @arethetypeswrong/cli on every tarball (ESM-only by design: require(esm) needs Node >= 22.12)', {
    timeout: 120_000,
  }, async () => {
    for (const { name, tarball: file } of packed) {
      const { code, output } = await sh(
        join(ROOT, 'node_modules/.bin/attw'),
        [file, '--ignore-rules', 'cjs-resolves-to-esm', '--format', 'ascii'],
        ROOT,
      );
      expect(code, `${name}\n${output}`).toBe(0);
    }
  });
});

describe.concurrent('fresh npm projects on plain Node', () => {
  it('runs on a Node this package supports', () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    expect(major > 22 || (major === 22 && minor >= 13)).toBe(true);
  });

  for (const project of CONSUMER_PROJECTS) {
    it(`${project.name}: ${project.readme} quickstart`, { timeout: INSTALL_TIMEOUT }, async ({ skip }) => {
      const postgresUrl = project.baton.includes('@baton/postgres') ? inject('postgresUrl') : undefined;
      if (postgresUrl === '' && skipUnless(false, 'a PostgreSQL server for the @baton/postgres quickstart'))
        skip();
      await runProject(project, postgresUrl ? { DATABASE_URL: postgresUrl } : {});
    });
  }

  it('@baton/cli: the installed `baton` replays and inspects a transcript, as its README shows', {
    timeout: INSTALL_TIMEOUT,
  }, async () => {
    // No zod named: npm installs @baton/core's peer by itself, as it will for a user.
    const dir = await npmProject('cli', ['@baton/cli'], {});
    expect(existsSync(join(dir, 'node_modules/tsx')), 'no TypeScript loader installed').toBe(false);
    writeFileSync(join(dir, 'session.json'), JSON.stringify(transcript()));
    const { code: snippetLang, lines } = shellQuickstart('packages/cli/README.md');
    expect(snippetLang).toBe('sh');
    for (const line of lines) {
      const [command, ...args] = line.split(/\s+/);
      if (command === 'npm') continue; // the install, done above from the tarball
      expect(command).toBe('npx');
      const { code, output } = await sh(command as string, ['--no-install', ...args], dir);
      expect(code, `${line}\n${output}`).toBe(0);
      if (args[1] === 'replay') {
        expect(output).toMatch(/^Baton\s+\d+\s+[\d,]+\s+0\s+0\s/m); // never over budget, opening kept
        expect(output).toMatch(/^no compaction\s+0\s+[\d,]+\s+[1-9]/m);
        expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<svg');
      } else {
        expect(output).toMatch(/^63 messages, [\d,]+ tokens/m);
      }
    }
  });

  it('@baton/testing: a third-party store runs the conformance suite with vitest, as its README shows', {
    timeout: INSTALL_TIMEOUT,
  }, async () => {
    const dir = await npmProject('testing', ['@baton/testing', '@baton/core'], {
      vitest: '4.1.12',
      zod: '4.6.7',
    });
    writeFileSync(join(dir, 'store.test.ts'), quickstart('packages/testing/README.md').code);
    // The consumer's own vitest, without colours (the assertions read its summary).
    const { code, output } = await sh(
      join(dir, 'node_modules/.bin/vitest'),
      ['run', '--reporter=verbose'],
      dir,
      {
        NO_COLOR: '1',
        FORCE_COLOR: '0',
      },
    );
    expect(code, output).toBe(0);
    expect(output).toMatch(/store conformance: my store/);
    expect(output).toMatch(/Tests\s+\d+ passed \| 1 skipped/);
    expect(output).toContain('lacks reopen: it keeps its data in the process');
  });
});

describe('@baton/testing/provider-wire', () => {
  it('stubs a provider in a project without vitest: the wire entry point loads no test runner', {
    timeout: INSTALL_TIMEOUT,
  }, async () => {
    const dir = await npmProject('wire-only', ['@baton/testing', '@baton/core'], { zod: '4.6.7' });
    expect(existsSync(join(dir, 'node_modules/vitest')), 'vitest installed').toBe(false);
    writeFileSync(
      join(dir, 'wire.mjs'),
      [
        "import { anthropicWire } from '@baton/testing/provider-wire';",
        "const wire = anthropicWire({ idPrefix: 'run-1', script: () => ({ calls: [{ name: 'ls', input: {} }] }) });",
        "const body = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };",
        "const answer = await (await wire.fetch('https://api.anthropic.com/v1/messages', { method: 'POST', body: JSON.stringify(body) })).json();",
        'console.log(answer.content[0].id);',
      ].join('\n'),
    );
    const { code, output } = await sh(process.execPath, ['wire.mjs'], dir);
    expect(code, output).toBe(0);
    expect(output.trim()).toBe('toolu_run-1_1_0');
  });
});

/** Installs, type-checks under both resolutions, and runs a project's quickstart. */
async function runProject(project: ConsumerProject, extraEnv: Record<string, string>) {
  const dir = await npmProject(project.name, project.baton, project.registry, project.npmFlags);
  expect(existsSync(join(dir, 'node_modules/tsx')), 'no TypeScript loader installed').toBe(false);
  for (const [file, content] of Object.entries(project.files ?? {})) writeFileSync(join(dir, file), content);
  const { lang, code } = quickstart(project.readme);
  expect(lang).toBe('ts');
  const mocked = project.files?.['your-model.js'] ? withMockModel(code) : code;
  const check = project.files?.['your-model.js']
    ? "\nimport { check } from './your-model.js';\ncheck();\n"
    : '';

  // The snippet is plain JavaScript as well as TypeScript: plain Node runs it as it is.
  writeFileSync(join(dir, 'quickstart.mjs'), `${mocked}${check}`);
  const result = await sh(process.execPath, ['quickstart.mjs'], dir, extraEnv);
  if (project.refuses) {
    expect(result.code, result.output).not.toBe(0);
    expect(result.output).toContain(project.refuses);
    return;
  }
  expect(result.code, result.output).toBe(0);
  if (check) expect(result.output).toContain('checked: 2 model calls');

  writeFileSync(join(dir, 'quickstart.ts'), mocked);
  for (const mode of ['nodenext', 'bundler'] as const) {
    writeTsconfig(dir, mode, ['quickstart.ts']);
    const types = await sh(tsc, ['-p', `tsconfig.${mode}.json`], dir);
    expect(types.code, `tsc (${mode}):\n${types.output}`).toBe(0);
  }
  if (project.requires) {
    const script = `const m = require(${JSON.stringify(project.requires)}); if (typeof m.createBaton !== 'function' && typeof m.postgresStore !== 'function') process.exit(3);`;
    const cjs = await sh(process.execPath, ['--input-type=commonjs', '-e', script], dir);
    expect(cjs.code, `require(${project.requires}):\n${cjs.output}`).toBe(0);
  }
}

/** The shell lines of a README's quickstart block. */
function shellQuickstart(readme: string): { code: string; lines: string[] } {
  const { lang, code } = quickstart(readme);
  return {
    code: lang,
    lines: code
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== ''),
  };
}

/** A small OpenAI-chat transcript with enough tool traffic to compact at a 16k window. */
function transcript(): unknown[] {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Find out why the nightly build fails.' },
  ];
  for (let i = 0; i < 30; i++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${i}`,
          type: 'function',
          function: { name: 'read_file', arguments: `{"path":"src/f${i}.ts"}` },
        },
      ],
    });
    messages.push({
      role: 'tool',
      tool_call_id: `call_${i}`,
      content: `// src/f${i}.ts\n${'export const x = 1;\n'.repeat(120)}`,
    });
  }
  messages.push({ role: 'assistant', content: 'The nightly build fails in step 3.' });
  return messages;
}
