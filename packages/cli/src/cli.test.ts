import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_DIR, CORPUS_MISSING, corpusAvailable } from '@baton/test-support/transcripts.ts';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/baton.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'baton-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function baton(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

const page = (i: number) =>
  `page ${i}\n${Array.from({ length: 120 }, (_, l) => `line ${l} of page ${i}: status ok`).join('\n')}`;

/** The same conversation in the four accepted formats: a request, 30 tool rounds, an answer. */
const ROUNDS = 30;
const openai = {
  messages: [
    { role: 'system', content: 'You audit logs.' },
    { role: 'user', content: 'Audit all pages.' },
    ...Array.from({ length: ROUNDS }, (_, i) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function', function: { name: 'read', arguments: `{"page":${i}}` } },
        ],
      },
      { role: 'tool', tool_call_id: `c${i}`, content: page(i) },
    ]).flat(),
    { role: 'assistant', content: 'All pages are fine.' },
  ],
};
const aiSdk = [
  { role: 'system', content: 'You audit logs.' },
  { role: 'user', content: 'Audit all pages.' },
  ...Array.from({ length: ROUNDS }, (_, i) => [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { page: i } }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `c${i}`,
          toolName: 'read',
          output: { type: 'text', value: page(i) },
        },
      ],
    },
  ]).flat(),
  { role: 'assistant', content: [{ type: 'text', text: 'All pages are fine.' }] },
];
const langchain = [
  {
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', 'SystemMessage'],
    kwargs: { content: 'You audit logs.' },
  },
  {
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', 'HumanMessage'],
    kwargs: { content: 'Audit all pages.' },
  },
  ...Array.from({ length: ROUNDS }, (_, i) => [
    {
      lc: 1,
      type: 'constructor',
      id: ['langchain_core', 'messages', 'AIMessage'],
      kwargs: { content: '', tool_calls: [{ id: `c${i}`, name: 'read', args: { page: i } }] },
    },
    {
      lc: 1,
      type: 'constructor',
      id: ['langchain_core', 'messages', 'ToolMessage'],
      kwargs: { content: page(i), tool_call_id: `c${i}` },
    },
  ]).flat(),
  {
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', 'AIMessage'],
    kwargs: { content: 'All pages are fine.' },
  },
];
const anthropic = {
  system: 'You audit logs.',
  messages: [
    { role: 'user', content: 'Audit all pages.' },
    ...Array.from({ length: ROUNDS }, (_, i) => [
      { role: 'assistant', content: [{ type: 'tool_use', id: `c${i}`, name: 'read', input: { page: i } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `c${i}`, content: page(i) }] },
    ]).flat(),
    { role: 'assistant', content: [{ type: 'text', text: 'All pages are fine.' }] },
  ],
};

describe('the baton binary', () => {
  it('prints its usage with --help and exits 0; without a command it exits 2', async () => {
    const help = await baton('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('baton replay <file>');
    // Every option the synopsis shows is explained on a line of its own.
    for (const flag of [
      '--window',
      '--model',
      '--pinned',
      '--self-compact',
      '--store',
      '--report',
      '--interval',
      '--thread',
      '--json',
    ])
      expect(help.stdout).toMatch(new RegExp(`^ {2}${flag} +\\S`, 'm'));
    expect((await baton()).code).toBe(2);
  });

  for (const [format, content, label] of [
    ['openai', openai, 'OpenAI Chat Completions'],
    ['ai-sdk', aiSdk, 'AI SDK ModelMessage'],
    ['langchain', langchain, 'LangChain serialized messages'],
    ['anthropic', anthropic, 'Anthropic Messages API'],
  ] as const) {
    it(`detects ${label} and replays it: every format gives the same numbers`, async () => {
      const result = await baton('replay', file(`${format}.json`, content), '--window', '8k');
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(label);
      // Not a TTY: plain progress lines, one per event.
      expect(result.stderr).toMatch(/^step \d+: fold-tool-results: /m);
      expect(result.stdout).toMatch(/^Baton\s+\d+\s+[\d,]+\s+0\s+0\s/m);
      const baton31 = /^Baton.*$/m.exec(result.stdout)?.[0];
      const reference = /^Baton.*$/m.exec(
        (await baton('replay', file('openai.json', openai), '--window', '8k')).stdout,
      )?.[0];
      expect(baton31).toBe(reference);
    });
  }

  it('rejects an unknown file with one clear error naming the accepted formats, exit 2, no stack trace', async () => {
    for (const [name, content, found] of [
      ['not-json.json', 'hello', 'text that is not JSON'],
      ['object.json', { foo: 1, bar: [] }, 'an object with keys foo, bar'],
      ['numbers.json', [1, 2, 3], 'an array of 3 whose first item is number'],
    ] as const) {
      const result = await baton('replay', file(name, content));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`found ${found}`);
      expect(result.stderr).toContain('Anthropic Messages API');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    // An empty list fits no format's shape test: it is said in one line, not after every format.
    for (const content of [[], { messages: [] }]) {
      const empty = await baton('replay', file('empty.json', content));
      expect(empty.code).toBe(2);
      expect(empty.stderr).toBe('baton: an empty list of messages: no conversation to read\n');
    }
    // A JSONL file no session reader fits: every format tried is listed with why it did not fit.
    const unknown = await baton('replay', file('unknown.jsonl', '{"a":1}\n{"b":2}\n'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Tried:');
    for (const format of [
      'Claude Code session JSONL',
      'Codex rollout',
      'smolagents',
      'tau2-bench',
      'LangGraph checkpoint',
      'Mastra',
      'OpenAI Responses',
      'a message array',
    ])
      expect(unknown.stderr).toContain(format);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    const missing = await baton('replay', join(dir, 'nope.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });

  it('rejects bad options with exit 2', async () => {
    const path = file('ok.json', openai);
    for (const args of [
      ['--window', 'lots'],
      ['--self-compact', 'poetry'],
      ['--store', 'redis://x'],
      ['--interval', '0'],
      ['--frobnicate'],
    ]) {
      const result = await baton('replay', path, ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('baton:');
    }
    expect((await baton('explode', path)).code).toBe(2);
    // An option inspect has no use for is refused, not accepted and ignored.
    const misplaced = await baton('inspect', path, '--report', join(dir, 'never.html'));
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('inspect does not take --report (replay does)');
  });

  it('refuses malformed messages, unreadable inputs and unwritable outputs in one line, exit 2, before any replay', async () => {
    const ok = file('fine.json', openai);
    const cases: Array<[string[], RegExp]> = [
      [
        [file('object-content.json', [{ role: 'user', content: { a: 1 } }])],
        /message 0 \(user\).*content is an object/,
      ],
      [
        [
          file('no-function.json', [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: null, tool_calls: [{ id: 'c1' }] },
          ]),
        ],
        /message 1 \(assistant\).*tool_calls\[0\] has no function with a name/,
      ],
      [[file('null-parts.json', [{ role: 'user', content: [null] }])], /content part 0 is a null/],
      [
        [
          file('no-call-id.json', [
            { role: 'user', content: 'hi' },
            { role: 'tool', content: 'x' },
          ]),
        ],
        /no tool_call_id/,
      ],
      [[dir], /cannot read .*: is a directory/],
      [[ok, '--report', join(dir, 'missing-dir', 'r.html')], /--report: cannot write .*no such directory/],
      [[ok, '--report', dir], /--report: .* is a directory/],
      [
        [ok, '--store', `sqlite:${join(dir, 'missing-dir', 'x.db')}`],
        /--store: cannot write .*no such directory/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await baton('replay', ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at |unexpected error/);
      // Refused before the replay: nothing was replayed.
      expect(result.stderr).not.toContain('replaying');
    }
    // Control characters from the input (a key echoed in the error, a file name) never reach the terminal raw.
    const hostile = await baton('replay', file('escape.json', [{ '\u001b[2Jevil': 1 }]));
    expect(hostile.code).toBe(2);
    expect(hostile.stderr).not.toContain('\u001b');
    expect(hostile.stderr).toContain('\\u001b[2Jevil');
    const named = await baton('replay', join(dir, 'missing\u001b[31m.json'));
    expect(named.code).toBe(2);
    expect(named.stderr).not.toContain('\u001b');
    expect(named.stderr).toContain('missing\\u001b[31m.json: no such file');
  });

  it('inspects: tokens by role and tool, largest messages, what pinning would cost', async () => {
    const result = await baton('inspect', file('inspect.json', openai), '--window', '32k');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}tool\s+30 messages/m);
    expect(result.stdout).toMatch(/^ {2}read\s+30 calls/m);
    expect(result.stdout).toContain('largest messages:');
    expect(result.stdout).toMatch(/read\s+[\d,]+ tokens = [\d.]+% of the budget/);
  });

  it('inspects: columns stay aligned past long tool names (MCP tools)', async () => {
    const mcp = 'mcp__context7__get-library-docs-for-a-long-name';
    const call = (id: string, name: string) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: id, content: page(id.length) },
    ];
    const messages = [{ role: 'user', content: 'Look it up.' }, ...call('a', 'Grep'), ...call('b', mcp)];
    const result = await baton('inspect', file('mcp.json', { messages }), '--window', '32k');
    expect(result.code).toBe(0);
    const rows = result.stdout.split('\n').filter((line) => / calls /.test(line));
    expect(rows).toHaveLength(2);
    expect(rows.map((row) => row.indexOf(' calls '))).toEqual([
      rows[1]!.indexOf(' calls '),
      rows[1]!.indexOf(' calls '),
    ]);
    const pinning = result.stdout.split('\n').filter((line) => / tokens = /.test(line));
    expect(new Set(pinning.map((row) => row.indexOf(' tokens = '))).size).toBe(1);
  });

  it('writes a self-contained HTML report and keeps its archive in a SQLite store', async () => {
    const report = join(dir, 'report.html');
    const db = join(dir, 'replay.db');
    const result = await baton(
      'replay',
      file('r.json', openai),
      '--window',
      '8k',
      '--store',
      `sqlite:${db}`,
      '--report',
      report,
      '--self-compact',
      'general',
    );
    expect(result.code).toBe(0);
    const html = readFileSync(report, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(html).toContain('<polyline class="series baton"');
    for (const key of ['baton', 'none', 'interval', 'deleteOldest'])
      expect(html).toContain(`<polyline class="cost-series ${key}"`);
    expect(html).toContain('<table class="costs">');
    expect(html).toContain('targetAt');
    // One row per step, naming its kinds of event.
    expect(html).toMatch(/<td>\d+<\/td><td>stage-completed(, [a-z-]+)*<\/td>/);
    expect(result.stdout).toMatch(/\d+ (entry|entries) archived/);
  });

  it('prints what each policy cost, under the model provider rules, in USD only when --model names a priced model', async () => {
    const path = file('costs.json', openai);
    // policy, compactions, peak, over budget, opening lost, refs in prompt, or recallable,
    // tokens billed, 0.1x, 1.25x, cached, then the provider's: read [, read with no breakpoints]
    // [, USD, USD with no breakpoints] (the pages name nothing the answer uses: n/a)
    const row = (anthropic: boolean) =>
      new RegExp(
        `^no compaction(?:\\s+[\\d,]+){4}\\s+n/a\\s+n/a\\s+[\\d,]+\\s+([\\d,]+)\\s+([\\d,]+)\\s+([\\d.]+)%\\s+([\\d.]+)%${anthropic ? '\\s+([\\d.]+)%\\s+\\$([\\d.]+)\\s+\\$([\\d.]+)' : ''}$`,
        'm',
      );
    const priced = await baton('replay', path, '--window', '8k', '--model', 'claude-sonnet-4');
    expect(priced.code).toBe(0);
    expect(priced.stdout).toMatch(
      /^policy .* cost 0\.1x read\s+1\.25x write\s+cached\s+read from cache\s+read, no breakpoints\s+USD\s+USD, no breakpoints$/m,
    );
    const [, read, write, cached, billed, bare, usd, usdBare] = row(true).exec(priced.stdout) ?? [];
    const tokens = (s: string | undefined) => Number(s?.replaceAll(',', ''));
    // Provider-neutral: every call but the first reads the whole previous history from the cache.
    expect(Number(cached)).toBeGreaterThan(90);
    expect(tokens(write)).toBeGreaterThan(tokens(read));
    // Anthropic: read only up to breakpoints; with none, nothing is cached and it costs more.
    expect(Number(billed)).toBeGreaterThan(50);
    expect(Number(bare)).toBe(0);
    expect(Number(usd)).toBeGreaterThan(0);
    expect(Number(usdBare)).toBeGreaterThan(Number(usd));
    expect(priced.stdout).toContain(
      'Billed by: Anthropic prompt caching: read and written only at cache_control breakpoints',
    );
    expect(priced.stdout).toContain(
      'USD: claude-sonnet-4 at its registry prices per million tokens: input $3,',
    );

    const unpriced = await baton('replay', path, '--window', '8k');
    expect(unpriced.stdout).not.toMatch(/^policy .*USD/m);
    expect(unpriced.stdout).toMatch(row(false));
    expect(unpriced.stdout).toContain('Billed by: no model named: any shared prefix from 1,024 tokens');
    expect(unpriced.stdout).toContain('USD: not shown: no --model names a priced model.');
  });

  it('prints how much of what the agent went on to use each policy kept in its prompt, or can recall', async () => {
    // The first page reports an error the answer names; at 8k the sliding window has lost it.
    const messages = openai.messages.map((message, i) =>
      i === 3
        ? { ...message, content: `${message.content}\nERROR E4242 raised by src/audit/loader.ts` }
        : message,
    );
    messages[messages.length - 1] = {
      role: 'assistant',
      content: 'E4242 in src/audit/loader.ts is the only failure.',
    };
    const result = await baton('replay', file('references.json', { messages }), '--window', '8k');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^policy .* opening lost\s+refs in prompt\s+or recallable\s+tokens billed /m,
    );
    const shares = (policy: string) =>
      new RegExp(`^${policy}(?:\\s+[\\d,]+){4}\\s+(n/a|[\\d.]+%)\\s+(n/a|[\\d.]+%)\\s`, 'm')
        .exec(result.stdout)
        ?.slice(1);
    expect(shares('no compaction')).toEqual(['0.0%', '0.0%']); // over the budget at the answer
    expect(shares('delete oldest')).toEqual(['0.0%', '0.0%']);
    expect(shares('Baton')?.[1]).toBe('100.0%');
    expect(result.stdout).toContain('References: 2 times, the agent used an identifier');
  });

  it.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
    'replays a real transcript from the corpus',
    async () => {
      const result = await baton(
        'replay',
        join(CORPUS_DIR, 'customer-service-tau-bench-airline.json'),
        '--window',
        '16k',
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^no compaction/m);
    },
  );
});
