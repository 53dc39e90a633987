import { UNFIT_STEP_PREFIX } from '@baton/core';
import { filler, scriptedModel } from '@baton/testing/ai-sdk';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { createBaton } from './index.ts';

/** The first words of the next-turn unfit notice (core's `unfitNotice`). */
const UNFIT_NOTICE = '[baton] The previous step could not fit the context window';
const WINDOW = 4_000;

/**
 * A user message larger than the whole window, in short text parts no preview can shorten
 * (degrade previews a long text, not a part under its preview size): that turn ends as unfit
 * before any model call.
 */
const paste: ModelMessage = {
  role: 'user',
  content: Array.from({ length: 500 }, (_, i) => ({ type: 'text' as const, text: filler(80, i) })),
};

/** Every text the model was sent, one string per text part or string content. */
function textsOf(prompt: ReadonlyArray<{ content: unknown }>): string[] {
  return prompt.flatMap((m) =>
    typeof m.content === 'string'
      ? [m.content]
      : (m.content as Array<{ type: string; text?: string }>).flatMap((p) =>
          typeof p.text === 'string' ? [p.text] : [],
        ),
  );
}

describe('an unfit reply never reaches the model again (AI SDK)', () => {
  for (const mode of ['middleware', 'prepareStep'] as const) {
    it(`${mode}: the next turn's prompt has the unfit notice, not the stored reply`, async () => {
      const session = createBaton({ contextWindow: WINDOW }).session(`unfit-reply-${mode}`);
      const replies = ['hello back', 'answered'];
      const { model, prompts } = scriptedModel(() => ({ text: replies[prompts.length - 1] ?? 'extra' }));
      const call =
        mode === 'middleware'
          ? { model: wrapLanguageModel({ model, middleware: session.middleware }) }
          : { model, prepareStep: session.prepareStepFor({}) };
      // The host keeps its history as the SDK docs show: every turn's response messages appended.
      const history: ModelMessage[] = [];
      const turn = async (message: ModelMessage) => {
        history.push(message);
        const result = await generateText({ ...call, messages: history });
        history.push(...result.response.messages);
        return result.text;
      };
      expect(await turn({ role: 'user', content: 'hello' })).toBe('hello back');
      expect((await turn(paste)).startsWith(UNFIT_STEP_PREFIX)).toBe(true);
      expect(prompts).toHaveLength(1);
      // The host's history keeps the reply: its users read it.
      expect(JSON.stringify(history)).toContain(UNFIT_STEP_PREFIX);
      expect(await turn({ role: 'user', content: 'a shorter question' })).toBe('answered');
      expect(prompts).toHaveLength(2);
      const sent = textsOf(prompts[1]!);
      expect(sent.some((t) => t.trimStart().startsWith(UNFIT_STEP_PREFIX))).toBe(false);
      expect(sent.join('\n')).not.toContain(UNFIT_STEP_PREFIX);
      expect(sent.join('\n')).toContain(UNFIT_NOTICE);
      expect(sent.join('\n')).toContain('a shorter question');
    });
  }
});
