import {
  compactionTracker,
  EXTERNAL_NOTE,
  EXTERNAL_NOTE_STEP,
  fileBody,
  LOOP_STEPS,
  LOOP_WINDOW,
  type LoopCall,
  loopTurn,
  loopViolations,
} from '@baton/test-support/cache-loop.ts';
import { scriptedModel } from '@baton/testing/ai-sdk';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBaton } from './index.ts';

/**
 * The cache rule through the SDK, in both modes: between compactions each prompt starts with
 * the one before byte for byte (notes writes, warnings and eviction notices included), so a
 * provider's prompt cache keeps hitting.
 */
describe('prompt caches keep hitting through the AI SDK', () => {
  for (const mode of ['middleware', 'prepareStep'] as const)
    it(`a ${LOOP_STEPS}-step loop with notes writes, an outside notes change, warnings and evictions (${mode})`, async () => {
      const tracker = compactionTracker();
      const baton = createBaton({ contextWindow: LOOP_WINDOW, onEvent: tracker.onEvent });
      const session = baton.session(`cache-${mode}`);
      const calls: LoopCall[] = [];
      const seen: Array<{ system: string; trailer: string }> = [];
      const { model } = scriptedModel(({ step, prompt, system, trailer }) => {
        calls.push({ messages: prompt.map((m) => JSON.stringify(m)), compacting: tracker.take() });
        seen.push({ system, trailer });
        return loopTurn(step);
      });
      const tools = {
        ...session.tools,
        read_file: tool({
          description: 'Read a file',
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => {
            // Another worker (or an operator) edits this conversation's notes meanwhile.
            if (path === `src/module_${EXTERNAL_NOTE_STEP}.ts`)
              await session.core.notes.write('ops', EXTERNAL_NOTE);
            return fileBody(path);
          },
        }),
      };
      await generateText({
        model: mode === 'middleware' ? wrapLanguageModel({ model, middleware: session.middleware }) : model,
        tools,
        ...(mode === 'prepareStep' ? { prepareStep: session.prepareStepFor(tools) } : {}),
        stopWhen: stepCountIs(LOOP_STEPS),
        system: 'You are a careful engineer.',
        prompt: 'Read every module, keeping your progress in your notes.',
      });

      expect(loopViolations(calls, seen)).toEqual([]);
    });
});
