import { UNFIT_STEP_PREFIX } from '@baton/core';
import { contextLengthError, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { batonProcessor } from './index.ts';

/** The first words of the next-turn unfit notice (core's `unfitNotice`). */
const UNFIT_NOTICE = '[baton] The previous step could not fit the context window';
const WINDOW = 32_000;

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

describe('an unfit reply never reaches the model again (Mastra with memory)', () => {
  it("the next turn's prompt has the unfit notice, not the reply memory stored", async () => {
    const memory = new Memory({
      storage: new LibSQLStore({ id: `unfit-reply-${Math.random()}`, url: ':memory:' }),
    });
    const baton = batonProcessor({ contextWindow: WINDOW, memory });
    // Turn 2's request is rejected as too long twice in a row (Mastra merges a message's text
    // parts into one, which degrade would preview): the run ends as unfit.
    const { model, calls } = scriptedModel(({ call }) =>
      call === 1 || call === 2 ? contextLengthError() : { text: call === 0 ? 'hello back' : 'answered' },
    );
    const agent = new Agent({
      id: 'chat',
      name: 'chat',
      instructions: 'Chat.',
      model,
      memory,
      ...baton.lists,
    });
    const options = { memory: { thread: 'unfit-reply', resource: 'r' } };
    expect((await agent.generate('hello', options)).text).toBe('hello back');
    const unfit = await agent.generate('Summarise the whole log I sent.', options);
    expect(unfit.text.startsWith(UNFIT_STEP_PREFIX)).toBe(true);
    expect(calls).toHaveLength(3);
    // Memory keeps the reply: its users read it.
    const stored = await memory.recall({ threadId: 'unfit-reply', perPage: false });
    expect(JSON.stringify(stored.messages)).toContain(UNFIT_STEP_PREFIX);
    expect((await agent.generate('a shorter question', options)).text).toBe('answered');
    expect(calls).toHaveLength(4);
    const sent = textsOf(calls[3]!.prompt);
    expect(sent.some((t) => t.trimStart().startsWith(UNFIT_STEP_PREFIX))).toBe(false);
    expect(sent.join('\n')).not.toContain(UNFIT_STEP_PREFIX);
    expect(sent.join('\n')).toContain(UNFIT_NOTICE);
    expect(sent.join('\n')).toContain('a shorter question');
  });
});
