import { describe, expect, it } from 'vitest';
import { BatonInputError } from '../index.ts';
import { promptToEntries } from '../provider/model-prompt.ts';
import { fromOpenAIChat } from '../provider/openai-chat.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { createBaton } from './baton.ts';
import { checkPrepareInput } from './entry-check.ts';

const valid = (): Entry[] => [
  createEntry(0, 'system', 'You are terse.', 's0'),
  createEntry(1, 'user', 'list the files', 'u1'),
  createEntry(
    2,
    'assistant',
    [
      { type: 'text', text: 'Reading.' },
      { type: 'tool-call', id: 'c1', name: 'ls', input: { path: '.' } },
    ],
    'a2',
  ),
  createEntry(3, 'tool', [{ type: 'tool-result', callId: 'c1', name: 'ls', output: ['a.ts'] }], 't3'),
  createEntry(4, 'assistant', 'Done.', 'a4'),
];

/** The valid history with entries[index] replaced by what `edit` makes of it. */
function withEntry(index: number, edit: (entry: Entry) => unknown): unknown[] {
  return valid().map((entry, i) => (i === index ? edit(entry) : entry));
}

function refusal(input: unknown): BatonInputError {
  try {
    checkPrepareInput(input);
  } catch (error) {
    if (error instanceof BatonInputError) return error;
    throw error;
  }
  throw new Error('expected a BatonInputError');
}

describe('checkPrepareInput', () => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    [
      'parts: null',
      withEntry(1, (e) => ({ ...e, parts: null })),
      'entries[1].parts',
      /expected an array, received null/,
    ],
    [
      'parts not an array',
      withEntry(1, (e) => ({ ...e, parts: 'hi' })),
      'entries[1].parts',
      /received string/,
    ],
    [
      'a text part whose text is a number',
      withEntry(2, (e) => ({ ...e, parts: [e.parts[0], { type: 'text', text: 42 }] })),
      'entries[2].parts[1].text',
      /expected a string, received number/,
    ],
    [
      'a tool call without an id',
      withEntry(2, (e) => ({ ...e, parts: [e.parts[0], { type: 'tool-call', name: 'ls', input: {} }] })),
      'entries[2].parts[1].id',
      /expected a string, received undefined/,
    ],
    [
      'a tool result without callId',
      withEntry(3, (e) => ({ ...e, parts: [{ type: 'tool-result', name: 'ls', output: 'x' }] })),
      'entries[3].parts[0].callId',
      /expected a string, received undefined/,
    ],
    ['an unknown role', withEntry(4, (e) => ({ ...e, role: 'bot' })), 'entries[4].role', /received "bot"/],
    [
      'a non-integer seq',
      withEntry(4, (e) => ({ ...e, seq: 1.5 })),
      'entries[4].seq',
      /whole number, received 1\.5/,
    ],
    ['a NaN seq', withEntry(4, (e) => ({ ...e, seq: Number.NaN })), 'entries[4].seq', /received NaN/],
    ['a missing key', withEntry(1, ({ key: _, ...rest }) => rest), 'entries[1].key', /received undefined/],
    [
      'an entry that is not an object',
      withEntry(3, () => 'hello'),
      'entries[3]',
      /an entry object, received string/,
    ],
    ['a null entry', withEntry(3, () => null), 'entries[3]', /received null/],
    [
      'an unknown part type',
      withEntry(1, (e) => ({ ...e, parts: [{ type: 'image', url: 'x' }] })),
      'entries[1].parts[0].type',
      /received "image"/,
    ],
    ['a null part', withEntry(1, (e) => ({ ...e, parts: [null] })), 'entries[1].parts[0]', /received null/],
    [
      'an opaque part with a negative cost',
      withEntry(1, (e) => ({ ...e, parts: [{ type: 'opaque', kind: 'image', value: {}, tokens: -3 }] })),
      'entries[1].parts[0].tokens',
      /received -3/,
    ],
    [
      'an unknown synthetic kind',
      withEntry(4, (e) => ({ ...e, meta: { synthetic: 'forged' } })),
      'entries[4].meta.synthetic',
      /received "forged"/,
    ],
  ];

  for (const [name, entries, path, message] of cases) {
    it(`refuses ${name}, naming the entry and the field`, () => {
      const error = refusal({ entries });
      expect(error.path).toBe(path);
      expect(error.message).toContain(`[baton] [input] ${path}: `);
      expect(error.message).toMatch(message);
      const index = Number(/^entries\[(\d+)\]/.exec(path)?.[1]);
      expect(error.entryIndex).toBe(index);
      const entry = (entries as unknown[])[index] as { key?: unknown } | null;
      if (typeof entry?.key === 'string') {
        expect(error.entryKey).toBe(entry.key);
        expect(error.message).toContain(`(entry key "${entry.key}")`);
      }
    });
  }

  it('refuses a missing or non-array entries list, a non-string system prompt and malformed tools', () => {
    expect(refusal(undefined).path).toBe('input');
    expect(refusal({}).path).toBe('entries');
    expect(refusal({ entries: { 0: valid()[0] } }).message).toMatch(
      /entries: expected an array of entries, received object/,
    );
    expect(refusal({ entries: valid(), system: ['a'] }).message).toMatch(
      /system: expected a string, received an array/,
    );
    expect(refusal({ entries: valid(), tools: {} }).path).toBe('tools');
    expect(refusal({ entries: valid(), tools: [{ name: 'ls' }, { description: 'x' }] }).path).toBe(
      'tools[1].name',
    );
    expect(refusal({ entries: valid(), tools: [{ name: 'ls', description: 3 }] }).path).toBe(
      'tools[0].description',
    );
  });

  it('names the field, never the content', () => {
    const secret = 'sk-SECRET-TOKEN';
    const error = refusal({
      entries: withEntry(3, (e) => ({
        ...e,
        parts: [{ type: 'tool-result', callId: 7, name: 'ls', output: secret }],
      })),
    });
    expect(error.message).not.toContain(secret);
    expect(error.message).toBe(
      '[baton] [input] entries[3].parts[0].callId: expected a string, received number (entry key "t3")',
    );
  });

  it('accepts every optional field and unknown contents the types allow', () => {
    const entries: unknown[] = [
      ...valid(),
      {
        key: '',
        seq: 5,
        role: 'tool',
        parts: [{ type: 'tool-result', callId: '', name: 'x', output: undefined, isError: true }],
        meta: { synthetic: 'missing-result', span: [1, 2], providerOptions: { anything: 1 } },
      },
      {
        key: 'o',
        seq: 6,
        role: 'assistant',
        parts: [
          { type: 'opaque', kind: 'reasoning', value: null, text: 'thinking' },
          { type: 'opaque', kind: 'image', value: new Uint8Array(3), tokens: 85 },
          { type: 'tool-call', id: 'c9', name: 'x', input: undefined },
          { type: 'text', text: '' },
        ],
      },
      { key: 'e', seq: 7, role: 'user', parts: [] },
    ];
    expect(() =>
      checkPrepareInput({
        entries,
        system: '',
        tools: [{ name: 'ls', description: undefined, inputSchema: { type: 'object' } }, { name: 'x' }],
      }),
    ).not.toThrow();
  });

  it("accepts what the core's converters produce from host messages", () => {
    const openai = fromOpenAIChat([
      { role: 'developer', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{bad json' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'a.ts' }] },
    ]);
    const prompt = promptToEntries([
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: 'AAAA' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: {} },
          { type: 'tool-call', toolCallId: 'p1', toolName: 'web', input: {}, providerExecuted: true },
          { type: 'tool-result', toolCallId: 'p1', toolName: 'web', output: { type: 'json', value: 1 } },
        ],
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'ls', output: { type: 'execution-denied' } },
        ],
      },
    ]);
    expect(() => checkPrepareInput({ entries: openai })).not.toThrow();
    expect(() => checkPrepareInput({ entries: prompt })).not.toThrow();
  });

  it("accepts a projection fed back in: Baton's own synthetic entries (folds, digests, summaries, repairs)", async () => {
    const session = createBaton({ contextWindow: 4_000 }).session('again');
    const history: Entry[] = [createEntry(0, 'user', 'audit', 'u0')];
    for (let s = 0; s < 20; s++) {
      history.push(
        createEntry(history.length, 'assistant', [
          { type: 'tool-call', id: `c${s}`, name: 'read', input: { s } },
        ]),
        createEntry(history.length + 1, 'tool', [
          { type: 'tool-result', callId: `c${s}`, name: 'read', output: 'line '.repeat(200) },
        ]),
      );
    }
    // An unanswered call in the middle: repair supplies a synthetic result.
    history.splice(
      3,
      0,
      createEntry(3, 'assistant', [{ type: 'tool-call', id: 'lost', name: 'read', input: {} }]),
    );
    const prepared = await session.prepare({ entries: history });
    expect(prepared.entries.some((e) => e.meta?.synthetic !== undefined)).toBe(true);
    expect(() => checkPrepareInput({ entries: prepared.entries })).not.toThrow();
    await expect(session.prepare({ entries: prepared.entries })).resolves.toBeDefined();
  });
});
