/**
 * SELFCOMPACT on the Vercel AI SDK, offline: a scripted MockLanguageModelV4 plays a coding
 * agent (edit, edit, …, run the tests) and also answers Baton's probes, as a real model would,
 * with structured output. The probes run at the end of closed units. The model says COMPRESS
 * once the test cycle has passed, writes the continuation summary, and the loop goes on
 * from it.
 *
 *   npx -y pnpm@12.4.2 --filter @baton/example-ai-sdk-agent self-compact
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Content } from '@ai-sdk/provider';
import { createBaton, RUBRICS, VERBATIM_HEADING } from '@baton/ai-sdk';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

let agentStep = 0;
function reply(prompt: LanguageModelV4CallOptions['prompt']): LanguageModelV4Content[] {
  const last = JSON.stringify(prompt.at(-1));
  const all = JSON.stringify(prompt);
  if (last.includes('[baton] Context check')) {
    // The model's own judgement against the coding rubric: closed once the tests passed.
    const closed = all.includes('12 passed');
    const criteria = RUBRICS.coding.criteria.map((c) => ({
      id: c.id,
      answer: c.id === 'CYCLE-CLOSED' && !closed ? 'N' : 'Y',
      evidence: closed ? 'tests: 12 passed, 0 failed' : 'the last edit is not tested yet',
    }));
    return [{ type: 'text', text: JSON.stringify({ criteria, decision: closed ? 'COMPRESS' : 'CONTINUE' }) }];
  }
  if (JSON.stringify(prompt[0]).includes('continuation summary'))
    return [
      {
        type: 'text',
        text: `${VERBATIM_HEADING}\n- tests: 12 passed, 0 failed\n\nFiles changed: src/parse_0.ts … src/parse_5.ts (timezone offsets). Command: npm test. Next: clean up the old helpers.`,
      },
    ];
  const step = agentStep++;
  if (step >= 10) return [{ type: 'text', text: 'Done: parser fixed, tests green, helpers cleaned up.' }];
  const [toolName, input] = step === 6 ? ['run_tests', {}] : ['edit', { path: `src/parse_${step}.ts` }];
  return [{ type: 'tool-call', toolCallId: `c${step}`, toolName, input: JSON.stringify(input) }];
}

const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }: LanguageModelV4CallOptions) => {
    const content = reply(prompt);
    return {
      content,
      finishReason: { unified: content[0]?.type === 'tool-call' ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: {
          total: Math.ceil(JSON.stringify(prompt).length / 4),
          noCache: undefined,
          cacheRead: undefined,
          cacheWrite: undefined,
        },
        outputTokens: { total: 20, text: 20, reasoning: undefined },
      },
      warnings: [],
    };
  },
});

const baton = createBaton({
  contextWindow: 32_000,
  selfCompact: { rubric: 'coding', probeEvery: 1, minSteps: 2, minTokens: 0, cooldownSteps: 2 },
  onEvent: (e) => {
    if (e.type === 'probe-decided')
      console.log(
        `[probe] step ${e.step} at ${e.tokens} tokens: ${e.decision} (${e.criteria.map((c) => `${c.id}=${c.answer}`).join(' ')})`,
      );
    if (e.type === 'self-compacted')
      console.log(
        `[compacted] step ${e.step}: ${e.tokensBefore} -> ${e.tokensAfter} tokens, ${e.messagesCompressed} messages into a ${e.summaryTokens}-token summary${e.early ? ' (before the backstop)' : ''}`,
      );
  },
});
const session = baton.session('parser-fix');
const result = await generateText({
  model: wrapLanguageModel({ model, middleware: session.middleware }),
  tools: {
    ...session.tools,
    edit: tool({
      description: 'Edit a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => `edited ${path}\n${'  const offset = parseOffset(input);\n'.repeat(60)}`,
    }),
    run_tests: tool({
      description: 'Run the tests',
      inputSchema: z.object({}),
      execute: async () => 'tests: 12 passed, 0 failed',
    }),
  },
  stopWhen: stepCountIs(20),
  prompt: 'Fix the timezone handling in the date parser.',
});
console.log(`\n${result.text}`);
