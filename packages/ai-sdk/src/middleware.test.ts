import { pairingViolation } from '@baton/core/internals';
import { contextLengthError, filler, scriptedModel } from '@baton/testing/ai-sdk';
import {
  generateText,
  stepCountIs,
  streamText,
  ToolLoopAgent,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type BatonEvent,
  BatonSessionError,
  createBaton,
  type HostMessage,
  type SummarizerInput,
  toEntries,
} from './index.ts';

const SKILL = `SKILL-DOC: release checklist\n${filler(1_500, 7)}\nSKILL-END`;

const workTools = {
  read_file: tool({
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `${path}\n${filler(2_400, path.length)}`,
  }),
  load_skill: tool({
    description: 'Load a skill document',
    inputSchema: z.object({ name: z.string() }),
    execute: async () => SKILL,
  }),
};

describe('@baton/ai-sdk middleware through generateText', () => {
  it('offers its tools as an AI SDK ToolSet on their own (the typecheck of this file is the test)', () => {
    const tools: ToolSet = createBaton({ contextWindow: 16_000 }).session('toolset').tools;
    expect(Object.keys(tools).sort()).toEqual(['compact', 'notes', 'recall']);
  });

  it('keeps a 200-step tool loop within budget, pairs tools, keeps pinned results verbatim and notes in the system prompt', async () => {
    const baton = createBaton({ contextWindow: 16_000, pinnedTools: ['load_skill'] });
    const session = baton.session('long-loop');
    const { model, prompts, usages } = scriptedModel(({ step }) => {
      if (step === 0) return { calls: [{ name: 'load_skill', input: { name: 'release' } }] };
      if (step === 5)
        return {
          calls: [
            { name: 'notes', input: { action: 'write', section: 'plan', text: 'ship v2 after the audit' } },
          ],
        };
      if (step >= 199) return { text: 'done' };
      return { calls: [{ name: 'read_file', input: { path: `src/file_${step}.ts` } }] };
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: { ...workTools, ...session.tools },
      stopWhen: stepCountIs(200),
      system: 'You are a release engineer.',
      prompt: 'Audit the repository, then ship v2.',
    });

    expect(prompts).toHaveLength(200);
    expect(result.text).toBe('done');
    const budget = baton.core.options.inputBudget;
    // Within budget as the provider counts it: the usage this one reports (characters / 4 of the
    // prompt and tools) is what Baton calibrates to, and what a provider refuses a prompt by.
    expect(Math.max(...usages)).toBeLessThanOrEqual(budget);
    for (const prompt of prompts) {
      // Exactly what the model received: every tool result with its call. (An o200k count of it
      // runs up to ~7% over this provider's, so it is not the budget's measure here.)
      const entries = toEntries(prompt as HostMessage[]);
      expect(pairingViolation(entries)).toBeUndefined();
    }
    expect(prompts.some((p) => JSON.stringify(p).includes('Context was compacted'))).toBe(true);
    const late = JSON.stringify(prompts[150]);
    expect(late).toContain('SKILL-DOC: release checklist');
    expect(late).toContain(JSON.stringify(SKILL).slice(1, -1));
    const lateSystem = prompts[150]!
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    expect(lateSystem).toContain('You are a release engineer.');
    expect(lateSystem).toContain('### plan\nship v2 after the audit');
    // The SDK's own history stayed complete (view mode).
    expect(result.steps.length).toBe(200);
    expect(JSON.stringify(result.steps[10]!.content)).toContain('src/file_10.ts');
  });

  it('a compaction requested with the compact tool happens before the next model call', async () => {
    const baton = createBaton({ contextWindow: 32_000 });
    const session = baton.session('compact-tool');
    const { model, prompts } = scriptedModel(({ step }) => {
      if (step === 6)
        return {
          calls: [{ name: 'compact', input: { instruction: 'keep file names', checkpoint: 'read 5 files' } }],
        };
      if (step === 9) return { text: 'ok' };
      return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: { ...workTools, ...session.tools },
      stopWhen: stepCountIs(20),
      prompt: 'Read files.',
    });
    const sizes = prompts.map((p) => JSON.stringify(p).length);
    expect(sizes[7]!).toBeLessThan(sizes[6]!);
    const system7 = prompts[7]!
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    // The compaction re-rendered the notes block (the checkpoint is in it); the eviction
    // notice is the last message, after the conversation.
    expect(system7).toContain('### checkpoint\nread 5 files');
    expect(system7).not.toContain('Context was compacted');
    const last7 = prompts[7]!.at(-1)!;
    expect(last7.role).toBe('user');
    expect(JSON.stringify(last7.content)).toContain('Context was compacted before this step');
  });

  it('compact({ instruction }): the next prompt holds a summary that follows it, where folding alone would reach the target, and the reply has true numbers', async () => {
    const run = async (input: { instruction?: string }) => {
      const events: BatonEvent[] = [];
      const summarizerInputs: SummarizerInput[] = [];
      const baton = createBaton({
        contextWindow: 32_000,
        onEvent: (event) => events.push(event),
        summarizer: async (given) => {
          summarizerInputs.push(given);
          return `KEPT AS ASKED: ${given.instruction}`;
        },
      });
      const { model, prompts, usages } = scriptedModel(({ step }) => {
        if (step === 10) return { calls: [{ name: 'compact', input }] };
        if (step === 12) return { text: 'ok' };
        return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
      });
      await generateText({
        model: wrapLanguageModel({ model, middleware: baton.session('compact-instruction').middleware }),
        tools: { ...workTools, ...baton.session('compact-instruction').tools },
        stopWhen: stepCountIs(20),
        prompt: 'Read files.',
      });
      const stages = events.flatMap((e) => (e.type === 'stage-completed' ? [e.stage] : []));
      return { baton, prompts, usages, stages, summarizerInputs };
    };
    // Without an instruction the same history compacts by folding alone.
    const plain = await run({});
    expect(plain.stages).toEqual(['fold-tool-results']);
    expect(plain.summarizerInputs).toHaveLength(0);

    const { baton, prompts, usages, stages, summarizerInputs } = await run({
      instruction: 'keep file names',
    });
    expect(stages[0]).toBe('summarize');
    expect(summarizerInputs.length).toBeGreaterThan(0);
    expect(summarizerInputs.every((i) => i.instruction === 'keep file names')).toBe(true);
    // What the model reads: the summary following the instruction replaces the older turns…
    const next = JSON.stringify(prompts[11]);
    const summary =
      /\[baton\] Summary of earlier conversation \(seq (\d+)-(\d+), .*? returns them verbatim\):\\nKEPT AS ASKED: keep file names/.exec(
        next,
      );
    expect(summary).not.toBeNull();
    expect(next).not.toContain('f1.ts\\n');
    expect(next).toContain('Your compact instruction was followed: the summary of seq');
    // …and the tool's reply it read said so, with the numbers of the prompt before.
    const reply =
      /The context is about ([\d,]+) tokens now\. Before your next step, messages seq (\d+)-(\d+) \(\d+ messages, about [\d,]+ tokens\) will be replaced by a summary that follows your instruction; then, if the context is still above ([\d,]+) tokens/.exec(
        next,
      );
    expect(reply).not.toBeNull();
    const [, tokensText, from, to, targetText] = reply!;
    const tokens = Number(tokensText!.replaceAll(',', ''));
    const { targetAt, inputBudget } = baton.core.options;
    expect(Math.abs(tokens - usages[10]!) / usages[10]!).toBeLessThan(0.05);
    expect(Number(targetText!.replaceAll(',', ''))).toBe(
      Math.round(Math.min(targetAt * inputBudget, tokens / 2)),
    );
    expect([from, to]).toEqual([summary![1], summary![2]]);
  });

  it('recovers a context-overflow error once by compacting harder, then ends in unfit without throwing', async () => {
    const baton = createBaton({ contextWindow: 16_000 });
    const session = baton.session('overflow');
    let failures = 0;
    const { model, prompts } = scriptedModel(({ step }) => {
      if (step === 4 && failures++ === 0) return contextLengthError();
      if (step >= 8) return contextLengthError();
      return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: workTools,
      stopWhen: stepCountIs(30),
      prompt: 'Read files.',
    });
    // Step 4 failed once and was retried with a smaller prompt.
    expect(JSON.stringify(prompts[5]).length).toBeLessThan(JSON.stringify(prompts[4]).length);
    // Two overflows in a row at step 8: a graceful unfit step, no exception.
    expect(result.finishReason).toBe('other');
    expect(result.text).toMatch(/\[baton\] This step was not sent to the model/);
    expect(result.providerMetadata?.baton).toMatchObject({ outcome: 'unfit' });
  });

  it('streams through streamText, and an unfit outcome streams its message', async () => {
    const baton = createBaton({ contextWindow: 16_000 });
    const { model, prompts } = scriptedModel(({ step }) =>
      step < 3
        ? { calls: [{ name: 'read_file', input: { path: `f${step}` } }] }
        : { text: 'streamed answer' },
    );
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: baton.session('stream').middleware }),
      tools: workTools,
      stopWhen: stepCountIs(10),
      prompt: 'Read three files.',
    });
    expect(await result.text).toBe('streamed answer');
    expect(prompts).toHaveLength(4);

    const tiny = createBaton({ contextWindow: 2_000 });
    const unfit = streamText({
      model: wrapLanguageModel({
        model: scriptedModel(() => ({ text: 'never' })).model,
        middleware: tiny.session('s').middleware,
      }),
      // A system prompt cannot shrink: a long user message would be previewed instead.
      system: filler(12_000, 3),
      prompt: 'go',
    });
    expect(await unfit.text).toMatch(/not sent to the model/);
    expect(await unfit.finishReason).toBe('other');
  });

  it('works as the model of a ToolLoopAgent, and one wrapped model serves many sessions by providerOptions', async () => {
    const baton = createBaton({ contextWindow: 16_000 });
    const { model, prompts } = scriptedModel(({ step }) =>
      step % 2 === 0
        ? { calls: [{ name: 'notes', input: { action: 'append', section: 'log', text: `step ${step}` } }] }
        : { text: 'ok' },
    );
    const agent = new ToolLoopAgent({
      model: wrapLanguageModel({ model, middleware: baton.middleware }),
      tools: { ...workTools, ...baton.session('alice').tools },
      stopWhen: stepCountIs(5),
      providerOptions: { baton: { sessionId: 'alice' } },
    });
    const answer = await agent.generate({ prompt: 'note something' });
    expect(answer.text).toBe('ok');
    expect(await baton.session('alice').core.notes.read('log')).toEqual({ name: 'log', text: 'step 0' });
    // The second call of alice's loop saw alice's notes write (its own call and result).
    expect(JSON.stringify(prompts[1])).toContain('"section":"log","text":"step 0"');
    expect(await baton.session('bob').core.notes.read()).toEqual([]);
  });

  it('never re-sends a stored unfit reply to the model as conversation', async () => {
    const session = createBaton({ contextWindow: 16_000 }).session('unfit-history');
    const { model, prompts } = scriptedModel(() => ({ text: 'ok' }));
    const unfitReply =
      '[baton] This step was not sent to the model: the context cannot fit the window (…). Nothing was lost.';
    await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      messages: [
        { role: 'user', content: 'paste' },
        { role: 'assistant', content: unfitReply },
        { role: 'user', content: 'shorter question' },
      ],
    });
    const sent = JSON.stringify(prompts[0]);
    expect(sent).toContain('shorter question');
    expect(sent).not.toContain('This step was not sent to the model');
  });

  it('refuses a call through the shared middleware that names no session, before the model is called', async () => {
    const baton = createBaton({ contextWindow: 16_000 });
    const { model, prompts } = scriptedModel(() => ({ text: 'ok' }));
    const shared = wrapLanguageModel({ model, middleware: baton.middleware });
    for (const prompt of ['conversation one', 'conversation two']) {
      const call = generateText({ model: shared, prompt });
      await expect(call).rejects.toThrow(BatonSessionError);
      await expect(generateText({ model: shared, prompt })).rejects.toThrow(
        /no session id for this call: pass providerOptions: \{ baton: \{ sessionId/,
      );
    }
    expect(prompts).toHaveLength(0);
  });
});
