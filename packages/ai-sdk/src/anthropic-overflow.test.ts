import { createAnthropic } from '@ai-sdk/anthropic';
import { filler } from '@baton/testing';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { createBaton } from './index.ts';

const WINDOW = 32_000;
const MAX_TOKENS = 4_096;

/**
 * A fetch that answers as Anthropic's Messages API does: it counts a request's input at one
 * token per two characters of its messages (about twice what o200k counts on this text: a
 * model whose tokenizer Baton does not have) and refuses a request whose input and
 * `max_tokens` exceed the window with Anthropic's own wording, as a 400 `invalid_request_error`.
 */
function anthropicWire() {
  const requests: Array<{ input: number; maxTokens: number; refused: boolean }> = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as {
      messages: unknown[];
      system?: unknown;
      max_tokens: number;
    };
    const input = Math.ceil(JSON.stringify([body.system ?? '', body.messages]).length / 2);
    const refused = input + body.max_tokens > WINDOW;
    requests.push({ input, maxTokens: body.max_tokens, refused });
    if (refused) {
      return Response.json(
        {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: `input length and \`max_tokens\` exceed context limit: ${input} + ${body.max_tokens} > ${WINDOW}, decrease input length or \`max_tokens\` and try again`,
          },
        },
        { status: 400 },
      );
    }
    return Response.json({
      id: `msg_${requests.length}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: `answer ${requests.length}` }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: input, output_tokens: 3 },
    });
  };
  return { fetch, requests };
}

describe('@ai-sdk/anthropic overflow, through its wire format', () => {
  it('a chat refused with "input length and `max_tokens` exceed context limit" answers on the retry and on every later turn', async () => {
    const wire = anthropicWire();
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
    expect(refusals.length).toBeGreaterThan(0);
    for (const i of refusals) expect(wire.requests[i + 1]?.refused).toBe(false);
    // After the first refusal taught the calibration, no later turn was refused again.
    expect(refusals.length).toBeLessThanOrEqual(2);
    expect(wire.requests.filter((r) => !r.refused).length).toBe(8);
    for (const r of wire.requests.filter((r) => !r.refused))
      expect(r.input + r.maxTokens).toBeLessThanOrEqual(WINDOW);
  });
});
