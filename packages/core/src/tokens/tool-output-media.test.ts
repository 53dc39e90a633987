import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createBaton } from '../session/baton.ts';
import { createEntry, type Entry, entryText } from '../transcript/transcript.ts';
import { TokenCounter } from './token-counter.ts';
import { gptTokenizer } from './tokenizer.ts';
import { outputMedia } from './tool-output-media.ts';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const chunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32(data.length), body, u32(crc32(body))]);
};
/** A screenshot-like PNG: noisy pixels, so its base64 is as long as a real one's (no compression wins). */
function screenshot(width: number, height: number, seed = 1): string {
  const rows = Buffer.alloc((1 + width * 3) * height);
  let x = seed;
  for (let i = 0; i < rows.length; i++) {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    rows[i] = i % (1 + width * 3) === 0 ? 0 : x >>> 24;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', Buffer.concat([u32(width), u32(height), Buffer.from([8, 2, 0, 0, 0])])),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}

const counter = () => new TokenCounter(gptTokenizer('o200k_base'), 512);
const words = (n: number) => Array.from({ length: n }, (_, i) => `line${i % 89}`).join(' ');
const png = screenshot(400, 300); // Anthropic: 400 * 300 / 750 = 160; OpenAI high: 85 + 170 = 255

/** The shapes hosts put a tool's image in. */
const shapes: Record<string, unknown> = {
  'AI SDK v7 content output': [
    { type: 'text', text: 'screenshot taken' },
    { type: 'file', mediaType: 'image/png', data: { type: 'data', data: png } },
  ],
  'AI SDK v5 media part': [{ type: 'media', mediaType: 'image/png', data: png }],
  'Anthropic image block': [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
  ],
  'OpenAI image_url': [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }],
  'LangChain standard block': [{ type: 'image', source_type: 'base64', mime_type: 'image/png', data: png }],
};

describe('images in tool outputs and opaque parts', () => {
  it('counts a tool output’s image by its size (the larger provider rule), not its base64 as text', () => {
    expect(png.length).toBeGreaterThan(400_000);
    for (const [shape, output] of Object.entries(shapes)) {
      const entry = createEntry(1, 'tool', [
        { type: 'tool-result', callId: 'c', name: 'screenshot', output },
      ]);
      const tokens = counter().raw(entry);
      expect(tokens, shape).toBeGreaterThanOrEqual(255);
      expect(tokens, shape).toBeLessThan(300);
    }
    // The same base64 as a plain string is text to the model, and counted as text.
    const asText = createEntry(1, 'tool', [{ type: 'tool-result', callId: 'c', name: 'cat', output: png }]);
    expect(counter().raw(asText)).toBeGreaterThan(100_000);
  });

  it('never counts below the bill: an unknown size at the image cap, a PDF as its base64, a text document as text', () => {
    const framing = counter().raw(
      createEntry(1, 'user', [{ type: 'opaque', kind: 'x', value: 0, tokens: 0 }]),
    );
    const count = (value: unknown) =>
      counter().raw(createEntry(1, 'user', [{ type: 'opaque', kind: 'image', value }])) - framing;
    const big = screenshot(1600, 1200); // Anthropic scales to about 1.19 MP: about 1,590 tokens
    expect(count({ type: 'image_url', image_url: { url: `data:image/png;base64,${big}` } })).toBeGreaterThan(
      1_500,
    );
    // An image behind a URL may be any size: counted at the cap, not at opaqueTokens.
    expect(count({ type: 'image_url', image_url: { url: 'https://example.com/a.png' } })).toBe(1_600);
    // A PDF's cost depends on its pages: its base64 as text is the upper bound.
    const pdf = Buffer.from(`%PDF-1.4 ${'x'.repeat(3_000)}`).toString('base64');
    expect(
      count({ type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: pdf } }),
    ).toBeGreaterThan(500);
    // A document with a text source is text.
    const log = words(2_000);
    const asDocument = createEntry(1, 'tool', [
      {
        type: 'tool-result',
        callId: 'c',
        name: 'read',
        output: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: log } }],
      },
    ]);
    expect(counter().raw(asDocument)).toBeGreaterThan(gptTokenizer('o200k_base').count(log));
    expect(outputMedia({ type: 'text', text: 'not media' })).toBeUndefined();
  });

  it('a JSON output that nests an image-shaped object is text to the model, counted as text', () => {
    const nested = {
      screenshot: { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    };
    const entry = createEntry(1, 'tool', [
      { type: 'tool-result', callId: 'c', name: 'state', output: nested },
    ]);
    expect(counter().raw(entry)).toBeGreaterThan(100_000);
  });

  it('a step with a screenshot does not look over the budget, and an old screenshot folds with its result', async () => {
    const baton = createBaton({ contextWindow: 16_000, keep: 1 });
    const session = baton.session('screens');
    const history: Entry[] = [createEntry(0, 'user', 'Check every page of the app.')];
    for (let step = 0; step < 6; step++) {
      history.push(
        createEntry(history.length, 'assistant', [
          { type: 'tool-call', id: `s${step}`, name: 'screenshot', input: { page: step } },
        ]),
        // As the Claude Code reader keeps it: the result's text, its image beside it.
        createEntry(history.length + 1, 'tool', [
          { type: 'tool-result', callId: `s${step}`, name: 'screenshot', output: `page ${step} rendered` },
          {
            type: 'opaque',
            kind: 'image',
            value: {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: screenshot(1000, 800, step) },
            },
          },
        ]),
      );
    }
    const prepared = await session.prepare({ entries: history });
    // Six 1000x800 screenshots: about 6 x 1,067 tokens, within a 12.8k budget (as text: millions).
    expect(prepared.tokens.before).toBeLessThan(8_000);
    expect(prepared.outcome).toBe('ok');

    // Asked to compact, the old screenshots fold: placeholders say an image went, the archive keeps it.
    session.requestCompaction('pages checked');
    const compacted = await session.prepare({ entries: history });
    expect(compacted.outcome).toBe('compacted');
    const images = (entries: readonly Entry[]) =>
      entries.filter((e) => e.parts.some((p) => p.type === 'opaque' && p.kind === 'image')).length;
    expect(images(compacted.entries)).toBeLessThan(6);
    expect(compacted.tokens.after).toBeLessThan(compacted.tokens.before);
    const folded = compacted.entries.find((e) => entryText(e).includes('Folded screenshot result'));
    expect(entryText(folded as Entry)).toMatch(/1 image or file/);
    const archived = await session.archive.get(history[2]!.key);
    expect(archived?.entry).toEqual(history[2]);
  });
});
