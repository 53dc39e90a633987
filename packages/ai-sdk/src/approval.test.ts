import { MISSING_RESULT_TEXT } from '@baton/core/internals';
import { filler, scriptedModel } from '@baton/testing/ai-sdk';
import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBaton } from './index.ts';

/** A loop that reads files, then asks to deploy: a call the SDK holds until a human approves it. */
function deployScript() {
  return scriptedModel(({ step, prompt }) => {
    if (JSON.stringify(prompt).includes('DEPLOYED to prod')) return { text: 'done' };
    if (step < 12) return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
    return { calls: [{ name: 'deploy', input: { target: 'prod' } }] };
  });
}

const tools = {
  read_file: tool({
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `${path}\n${filler(2_400, path.length)}`,
  }),
  deploy: tool({
    inputSchema: z.object({ target: z.string() }),
    needsApproval: true,
    execute: async ({ target }) => `DEPLOYED to ${target}`,
  }),
};

describe('AI SDK tool approval under Baton', () => {
  for (const mode of ['middleware', 'prepareStep'] as const) {
    it(`${mode}: a call awaiting approval is never answered by Baton, and runs with its real result once approved`, async () => {
      const session = createBaton({ contextWindow: 8_000 }).session(`approval-${mode}`);
      const { model, prompts } = deployScript();
      const all = { ...tools, ...session.tools };
      const options =
        mode === 'middleware'
          ? { model: wrapLanguageModel({ model, middleware: session.middleware }) }
          : { model, prepareStep: session.prepareStepFor(all) };
      const first = await generateText({
        ...options,
        tools: all,
        stopWhen: stepCountIs(40),
        prompt: 'Read, then deploy.',
      });
      const request = first.content.find((part) => part.type === 'tool-approval-request');
      expect(request).toBeDefined();
      const history: ModelMessage[] = [
        { role: 'user', content: 'Read, then deploy.' },
        ...first.response.messages,
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }],
        },
      ];
      const second = await generateText({
        ...options,
        tools: all,
        stopWhen: stepCountIs(10),
        messages: history,
      });
      expect(second.text).toBe('done');
      // The model's last prompt holds the approved call's real result.
      const results = prompts
        .at(-1)!
        .flatMap(
          (m): Array<{ type: string; toolName?: string }> => (Array.isArray(m.content) ? m.content : []),
        )
        .filter((part) => part.type === 'tool-result' && part.toolName === 'deploy');
      expect(JSON.stringify(results)).toContain('DEPLOYED to prod');
      // The context was compacted on the way (the reads overflow 8k), yet nothing made up reached anyone.
      expect(JSON.stringify(prompts)).toContain('Context was compacted');
      expect(JSON.stringify([first.response.messages, second.response.messages, prompts])).not.toContain(
        MISSING_RESULT_TEXT,
      );
    });
  }
});
