import { pairingViolation } from '@baton/core/internals';
import { contextLengthError, filler, scriptedModel } from '@baton/testing/ai-sdk';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z4 } from 'zod/v4';
import { createBaton, gptTokenizer, type HostMessage, TokenCounter, toEntries } from './index.ts';

const counter = new TokenCounter(gptTokenizer(), 512);
const promptTokens = (prompt: unknown) =>
  toEntries(prompt as HostMessage[]).reduce((sum, e) => sum + counter.raw(e), 0);
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

/** A tool whose definition alone is about 2,500 tokens: a prompt that ignores schemas overflows. */
const LONG_DESCRIPTION = `Read a file. ${filler(16_000, 11)}`;
const readFileSchema = z.object({ path: z.string() });
const readFile = tool({
  description: LONG_DESCRIPTION,
  inputSchema: readFileSchema,
  execute: async ({ path }) => `${path}\n${filler(3_000, path.length)}`,
});

describe('prepareStep (rewrite mode)', () => {
  it('rewrites the carried-forward history with the archive written first, and keeps notes in the instructions', async () => {
    const baton = createBaton({ contextWindow: 8_000 });
    const session = baton.session('rewrite');
    const { model, prompts } = scriptedModel(({ step }) => {
      if (step === 1)
        return {
          calls: [{ name: 'notes', input: { action: 'write', section: 'goal', text: 'read all files' } }],
        };
      if (step >= 25) return { text: 'done' };
      return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
    });
    const result = await generateText({
      model,
      tools: {
        ...session.tools,
        read_file: tool({
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => `${path}\n${filler(2_000, path.length)}`,
        }),
      },
      prepareStep: session.prepareStep,
      instructions: 'You read files.',
      stopWhen: stepCountIs(30),
      prompt: 'Read the files.',
    });
    expect(result.text).toBe('done');
    const budget = baton.core.options.inputBudget;
    // Every prompt stays near the budget although the loop read 23 files of ~500 tokens.
    const counter = new TokenCounter(gptTokenizer(), 512);
    for (const prompt of prompts) {
      const entries = toEntries(prompt as HostMessage[]);
      expect(entries.reduce((sum, e) => sum + counter.raw(e), 0)).toBeLessThanOrEqual(budget);
      expect(pairingViolation(entries)).toBeUndefined();
    }
    // The history was really rewritten: late prompts carry what Baton put in place of the early
    // reads (a summary of them; folded placeholders until a later compaction summarized those).
    expect(JSON.stringify(prompts.at(-1))).toMatch(
      /\[baton\] (Summary of earlier conversation|Folded read_file result)/,
    );
    const late = prompts.at(-1)!;
    const system = late
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    expect(system).toContain('You read files.');
    expect(system).toContain('### goal\nread all files');
    // Evicted results are in the archive, recallable verbatim.
    const records = await session.core.archive.search('f3.ts');
    expect(records.length).toBeGreaterThan(0);
  });

  it('runs 70 steps at a 12k window: the notes appear at most once in any prompt, and every prompt fits with its tool schemas', async () => {
    const baton = createBaton({ contextWindow: 12_000 });
    const session = baton.session('seventy');
    const { model, prompts } = scriptedModel(({ step }) => {
      if (step === 1)
        return {
          calls: [{ name: 'notes', input: { action: 'write', section: 'goal', text: 'NOTE-MARK read all' } }],
        };
      if (step >= 69) return { text: 'done' };
      return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
    });
    const tools = { ...session.tools, read_file: readFile };
    const result = await generateText({
      model,
      tools,
      prepareStep: session.prepareStepFor(tools),
      instructions: 'You read files.',
      stopWhen: stepCountIs(70),
      prompt: 'Read the files.',
    });
    expect(result.text).toBe('done');
    expect(prompts).toHaveLength(70);
    const schemas = Object.entries(tools).map(([name, t]) => ({
      name,
      description: t.description as string,
      inputSchema: name === 'read_file' ? z4.toJSONSchema(readFileSchema) : {},
    }));
    const budget = baton.core.options.inputBudget;
    for (const prompt of prompts) {
      const system = prompt.filter((m) => m.role === 'system');
      // The rendered notes section (an eviction notice may also quote the notes call's input).
      expect(occurrences(JSON.stringify(system), '### goal\\nNOTE-MARK')).toBeLessThanOrEqual(1);
      expect(promptTokens(prompt) + counter.rawTools(schemas)).toBeLessThanOrEqual(budget);
    }
    // The notes are there after the write, once, in the system part.
    const late = prompts.at(-1)!.filter((m) => m.role === 'system');
    expect(occurrences(JSON.stringify(late), '### goal\\nNOTE-MARK')).toBe(1);
    expect(JSON.stringify(late)).toContain('You read files.');
  });

  it('counts the tool schemas from the first step, before any usage could calibrate the count', async () => {
    const baton = createBaton({ contextWindow: 12_000 });
    const session = baton.session('schemas-first');
    const { model, prompts } = scriptedModel(() => ({ text: 'done' }));
    const tools = { ...session.tools, read_file: readFile };
    // About 6,500 tokens of history: under compactAt (7,680) with Baton's own tools, over the
    // budget (9,600) with the ~3,500 tokens of all the schemas.
    const history = Array.from({ length: 13 }, (_, i) => [
      { role: 'user' as const, content: `question ${i} ${filler(1_200, i)}` },
      { role: 'assistant' as const, content: `answer ${i} ${filler(1_200, i + 50)}` },
    ]).flat();
    await generateText({
      model,
      tools,
      prepareStep: session.prepareStepFor(tools),
      messages: [...history, { role: 'user', content: 'Summarise.' }],
    });
    const schemas = [
      ...Object.entries(session.tools).map(([name, t]) => ({ name, description: t.description as string })),
      { name: 'read_file', description: LONG_DESCRIPTION, inputSchema: z4.toJSONSchema(readFileSchema) },
    ];
    expect(promptTokens(history)).toBeGreaterThan(6_200);
    expect(promptTokens(prompts[0]) + counter.rawTools(schemas)).toBeLessThanOrEqual(
      baton.core.options.inputBudget,
    );
  });

  it('ends an unfit step without calling the model, in generateText and in streamText', async () => {
    for (const run of ['generate', 'stream'] as const) {
      const baton = createBaton({ contextWindow: 4_000, pinnedTools: ['fetch_shard'] });
      const session = baton.session(`unfit-${run}`);
      const { model, prompts } = scriptedModel(({ step }) =>
        step === 0
          ? { calls: [{ name: 'fetch_shard', input: { shard: 1 } }] }
          : { text: 'should not be called' },
      );
      const tools = {
        ...session.tools,
        fetch_shard: tool({
          inputSchema: z.object({ shard: z.number() }),
          execute: async () => filler(30_000, 3),
        }),
      };
      const options = {
        model,
        tools,
        prepareStep: session.prepareStepFor(tools),
        stopWhen: stepCountIs(5),
        prompt: 'Fetch shard 1.',
      };
      const text = run === 'generate' ? (await generateText(options)).text : await streamText(options).text;
      expect(prompts).toHaveLength(1);
      expect(text).toMatch(/not sent to the model/);
    }
  });

  it('recovers a context-length error once by compacting harder, and ends the step as unfit on a second in a row', async () => {
    const baton = createBaton({ contextWindow: 16_000 });
    const session = baton.session('overflow');
    let failures = 0;
    const { model, prompts } = scriptedModel(({ step }) => {
      if (step === 4 && failures++ === 0) return contextLengthError();
      if (step >= 8) return { text: 'done' };
      return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
    });
    const tools = {
      ...session.tools,
      read_file: tool({
        description: 'Read a file',
        inputSchema: readFileSchema,
        execute: async ({ path }) => `${path}\n${filler(3_000, path.length)}`,
      }),
    };
    const once = await generateText({
      model,
      tools,
      prepareStep: session.prepareStepFor(tools),
      stopWhen: stepCountIs(12),
      prompt: 'Read the files.',
    });
    expect(once.text).toBe('done');
    // The retried call went out smaller than the rejected one.
    expect(promptTokens(prompts[5])).toBeLessThan(promptTokens(prompts[4]));

    const always = scriptedModel(({ step }) =>
      step === 0 ? { calls: [{ name: 'read_file', input: { path: 'a.ts' } }] } : contextLengthError(),
    );
    const twice = await generateText({
      model: always.model,
      tools,
      prepareStep: baton.session('overflow-twice').prepareStepFor(tools),
      stopWhen: stepCountIs(5),
      prompt: 'Read a file.',
    });
    expect(always.prompts).toHaveLength(3); // the call, its rejected retry... and never a fourth
    expect(twice.text).toMatch(/not sent to the model|context/);
  });
});
