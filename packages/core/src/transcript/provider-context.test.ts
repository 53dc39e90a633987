import { describe, expect, it } from 'vitest';
import { createBaton } from '../index.ts';
import { entriesToPrompt, type PromptMessage, promptToEntries } from '../provider/model-prompt.ts';
import { providerCompactionOf } from './provider-context.ts';

const paste = (n: number) => `Paste ${n}: ${'the quick brown fox jumps over the lazy dog. '.repeat(120)}`;

describe('provider-side compaction', () => {
  it('names the compaction a call turns on, and not thinking-only clearing', () => {
    expect(providerCompactionOf(undefined)).toBeUndefined();
    expect(providerCompactionOf({ anthropic: { thinking: { type: 'enabled' } } })).toBeUndefined();
    expect(
      providerCompactionOf({
        anthropic: { contextManagement: { edits: [{ type: 'clear_thinking_20251015' }] } },
      }),
    ).toBeUndefined();
    expect(providerCompactionOf({ anthropic: { compaction: { type: 'summarize' } } })).toBe(
      'anthropic compaction',
    );
    expect(
      providerCompactionOf({
        anthropic: {
          contextManagement: { edits: [{ type: 'clear_tool_uses_20250919' }, { type: 'compact_20260112' }] },
        },
      }),
    ).toBe(
      'anthropic contextManagement clear_tool_uses_20250919, anthropic contextManagement compact_20260112',
    );
    expect(
      providerCompactionOf({
        openai: { contextManagement: [{ type: 'compaction', compactThreshold: 1e5 }] },
      }),
    ).toBe('openai contextManagement compaction');
    expect(providerCompactionOf({ openai: { compactionTrigger: true } })).toBe('openai compactionTrigger');
  });

  it('counts an OpenAI Responses compaction item by its ciphertext, keeps it verbatim and never evicts it', async () => {
    const item = {
      type: 'custom',
      kind: 'openai.compaction',
      providerOptions: { openai: { itemId: 'cmp_1', encryptedContent: 'A'.repeat(40_000) } },
    };
    const prompt: PromptMessage[] = [
      { role: 'user', content: [{ type: 'text', text: paste(0) }] },
      { role: 'assistant', content: [item, { type: 'text', text: 'Continuing.' }] },
      ...[1, 2, 3, 4, 5, 6].flatMap((n): PromptMessage[] => [
        { role: 'user', content: [{ type: 'text', text: paste(n) }] },
        { role: 'assistant', content: [{ type: 'text', text: `noted ${n}` }] },
      ]),
      { role: 'user', content: [{ type: 'text', text: 'What now?' }] },
    ];
    const entries = promptToEntries(prompt);
    const held = entries[1]!.parts[0]!;
    // 40,000 base64 characters: 30,000 bytes, about 7,500 tokens (not a flat 512).
    expect(held).toMatchObject({ type: 'opaque', kind: 'custom', tokens: 7_500 });
    const session = createBaton({ contextWindow: 16_000 }).session('s');
    const prepared = await session.prepare({ entries });
    expect(prepared.tokens.before).toBeGreaterThan(7_500 + 6 * 500);
    expect(prepared.outcome).toBe('compacted');
    // Older pastes went; the compaction item's message went back as the very same object.
    const sent = entriesToPrompt(prepared.entries);
    expect(sent).toContain(prompt[1]);
    expect(JSON.stringify(sent)).not.toContain(paste(1));
  });
});
