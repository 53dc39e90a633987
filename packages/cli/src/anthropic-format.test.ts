import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gptTokenizer } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { readSession } from './formats.ts';
import { pngBase64, runCli, scratchDir } from './readers/fixtures.test-support.ts';

const dir = scratchDir('anthropic');

const write = (name: string, value: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
};

async function inspect(path: string): Promise<{ code: number; out: string }> {
  const { code, output } = await runCli(['inspect', path, '--window', '200k']);
  return { code, out: output };
}

/** The total inspect prints: "N messages, T tokens". */
const totalOf = (out: string) => Number(/messages, ([\d,]+) tokens/.exec(out)?.[1]?.replaceAll(',', ''));

describe('Anthropic Messages files', () => {
  it('counts a thinking block: a 3,000-token thought adds about 3,000 tokens', async () => {
    const thought = Array.from({ length: 3_000 }, (_, i) => `step${i % 97}`).join(' ');
    const thoughtTokens = gptTokenizer('o200k_base').count(thought);
    expect(thoughtTokens).toBeGreaterThan(2_900);
    const turn = (withThinking: boolean) => ({
      system: 'You fix bugs.',
      messages: [
        { role: 'user', content: 'Why does the build fail?' },
        {
          role: 'assistant',
          content: [
            ...(withThinking ? [{ type: 'thinking', thinking: thought, signature: 'sig' }] : []),
            { type: 'text', text: 'The go.mod pins Go 1.24.' },
          ],
        },
      ],
    });
    const bare = await inspect(write('bare.json', turn(false)));
    const thinking = await inspect(write('thinking.json', turn(true)));
    expect(thinking.code).toBe(0);
    expect(thinking.out).toContain('Anthropic Messages API');
    const added = totalOf(thinking.out) - totalOf(bare.out);
    expect(added).toBeGreaterThanOrEqual(thoughtTokens);
    expect(added).toBeLessThan(thoughtTokens + 20);
  });

  it('counts images by Anthropic’s rule, not their base64, in user messages and tool results', () => {
    const screenshot = pngBase64(1000, 800, 60_000); // 1000 x 800 / 750 = 1,067 tokens
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: screenshot } };
    const transcript = readSession(
      write('images.json', {
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'What is on screen?' }, image] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'screenshot', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'taken' }, image] },
            ],
          },
          { role: 'assistant', content: 'A login form.' },
        ],
      }),
    );
    expect(transcript.format).toBe('anthropic');
    const images = transcript.entries.flatMap((e) =>
      e.parts.filter((p) => p.type === 'opaque' && p.kind === 'image'),
    );
    expect(images).toHaveLength(2);
    for (const part of images) expect(part).toMatchObject({ tokens: 1_067 });
    const result = transcript.entries.find((e) => e.role === 'tool');
    expect(result?.parts[0]).toMatchObject({ type: 'tool-result', callId: 't1', output: 'taken' });
  });

  it('a file with only text and image blocks is read as Anthropic, not OpenAI', () => {
    const transcript = readSession(
      write('text-and-image.json', [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe it.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(64, 64) } },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'A square.' }] },
      ]),
    );
    expect(transcript.format).toBe('anthropic');
  });
});
