import { createAnthropic } from '@ai-sdk/anthropic';
import { filler } from '@baton/testing';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { type BatonEvent, createBaton } from './index.ts';

const SUMMARY =
  'Compacted by the provider: the user is auditing logs 1-3; parser.ts:88 throws on empty lines.';
const SIGNATURE = 'EqQBCkgIARABGAIiQL2';

/**
 * A fetch answering as Anthropic's Messages API with server-side compaction on: the second
 * reply opens with a signed `compaction` block (what the API returns when its trigger fires).
 * Records every request body.
 */
function compactingAnthropic() {
  const bodies: Array<{ messages: Array<{ role: string; content: unknown }> }> = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    bodies.push(JSON.parse(String(init?.body)));
    const n = bodies.length;
    const content = [
      ...(n === 2 ? [{ type: 'compaction', content: SUMMARY, signature: SIGNATURE }] : []),
      { type: 'text', text: `answer ${n}` },
    ];
    return Response.json({
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: Math.ceil(String(init?.body).length / 4), output_tokens: 5 },
    });
  };
  return { fetch, bodies };
}

describe('provider-side compaction through @ai-sdk/anthropic', () => {
  it("keeps the provider's signed compaction block verbatim in every later request while Baton compacts around it, and says once that two compactors are on", async () => {
    const wire = compactingAnthropic();
    const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
    const events: BatonEvent[] = [];
    const session = createBaton({ contextWindow: 12_000, onEvent: (event) => events.push(event) }).session(
      'audit',
    );
    const model = wrapLanguageModel({
      model: anthropic('claude-sonnet-4-5'),
      middleware: session.middleware,
    });
    const messages: ModelMessage[] = [];
    for (let turn = 1; turn <= 9; turn++) {
      messages.push({ role: 'user', content: `Log part ${turn}:\n${filler(6_000, turn)}\nAnything odd?` });
      const result = await generateText({
        model,
        messages,
        maxOutputTokens: 1_024,
        providerOptions: { anthropic: { contextManagement: { edits: [{ type: 'compact_20260112' }] } } },
      });
      messages.push(...result.response.messages);
    }
    const compactionBlocks = (body: (typeof wire.bodies)[number]) =>
      body.messages.flatMap((message) =>
        Array.isArray(message.content)
          ? (message.content as Array<{ type: string }>).filter((block) => block.type === 'compaction')
          : [],
      );
    // Requests 3..9 come after the reply that carried the block: each sends it back, byte for byte.
    for (const body of wire.bodies.slice(2)) {
      expect(compactionBlocks(body)).toEqual([
        { type: 'compaction', content: SUMMARY, signature: SIGNATURE },
      ]);
    }
    // Baton did compact this conversation (older pastes evicted) and still kept the block.
    const evictions = events.filter((e) => e.type === 'notice-shown' && e.notice.kind === 'eviction');
    expect(evictions.length).toBeGreaterThan(0);
    const last = JSON.stringify(wire.bodies.at(-1));
    expect(last).toContain(filler(6_000, 1).slice(0, 200)); // the opening request stays
    expect(last).not.toContain(filler(6_000, 3).slice(0, 200));
    // Two compactors on one conversation are told, once.
    const told = events.filter((e) => e.type === 'provider-compaction-configured');
    expect(told).toEqual([
      {
        type: 'provider-compaction-configured',
        sessionId: 'audit',
        setting: 'anthropic contextManagement compact_20260112',
      },
    ]);
  });
});
