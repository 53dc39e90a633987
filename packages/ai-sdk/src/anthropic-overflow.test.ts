import { createAnthropic } from '@ai-sdk/anthropic';
import { anthropicWire, filler, providerRuleViolations, type WireBody } from '@baton/testing';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { createBaton } from './index.ts';

const WINDOW = 32_000;
const MAX_TOKENS = 4_096;

/**
 * Anthropic's Messages API as the kit stubs it, counting a request's input at one token per two
 * characters of its system and messages (about twice what o200k counts on this text: a model
 * whose tokenizer Baton does not have), so Baton's first estimate is refused with Anthropic's
 * own "input length and `max_tokens` exceed context limit" 400.
 */
const twoCharsPerToken = (body: WireBody) =>
  Math.ceil(JSON.stringify([body.system ?? '', body.messages]).length / 2);

describe('@ai-sdk/anthropic overflow, through its wire format', () => {
  it('a chat refused with "input length and `max_tokens` exceed context limit" answers on the retry and on every later turn', async () => {
    const wire = anthropicWire({ contextWindow: WINDOW, count: twoCharsPerToken });
    const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
    const session = createBaton({ contextWindow: WINDOW }).session('pasted-chat');
    const model = wrapLanguageModel({
      model: anthropic('claude-sonnet-4-5'),
      middleware: session.middleware,
    });
    const messages: ModelMessage[] = [];
    const answers: string[] = [];
    // Turn 1 pastes a 60,000-character log: within Baton's budget by its o200k count, about
    // twice that as the provider counts, so the first request is refused. Later turns paste 6,000.
    for (let turn = 1; turn <= 8; turn++) {
      const log = filler(turn === 1 ? 60_000 : 6_000, turn);
      messages.push({ role: 'user', content: `Log part ${turn}:\n${log}\nWhat stands out?` });
      const result = await generateText({ model, messages, maxOutputTokens: MAX_TOKENS });
      answers.push(result.text);
      messages.push({ role: 'assistant', content: result.text });
    }
    // Every turn answered by the model (none failed, none ended unfit).
    expect(answers).toHaveLength(8);
    for (const answer of answers) expect(answer).toMatch(/^answer \d+$/);
    // The provider refused at least once (Baton's o200k count was half the provider's), and each
    // refusal was followed by a request it accepted: the retry within the same turn.
    const refusals = wire.requests.flatMap((r, i) => (r.refused ? [i] : []));
    expect(wire.requests.flatMap((r) => providerRuleViolations('anthropic', r.body))).toEqual([]);
    expect(refusals.length).toBeGreaterThan(0);
    for (const i of refusals) expect(wire.requests[i + 1]?.refused).toBe(false);
    // After the first refusal taught the calibration, no later turn was refused again.
    expect(refusals.length).toBeLessThanOrEqual(2);
    expect(wire.requests.filter((r) => !r.refused).length).toBe(8);
    for (const r of wire.requests.filter((r) => !r.refused))
      expect(r.inputTokens + (r.maxOutputTokens ?? 0)).toBeLessThanOrEqual(WINDOW);
  });
});
