/**
 * A long agent loop on the Vercel AI SDK with Baton managing its context.
 *
 * Offline by default: a scripted MockLanguageModelV4 plays the model (it reads files, keeps
 * notes when Baton warns it, and compacts itself after each batch). With OPENAI_API_KEY set
 * and `@ai-sdk/openai` installed, the same loop runs against gpt-4o-mini instead.
 *
 *   npx -y pnpm@12.4.2 --filter @baton/example-ai-sdk-agent start
 *   npx -y pnpm@12.4.2 --filter @baton/example-ai-sdk-agent start --rewrite   # prepareStep mode
 *
 * The default wraps the model with Baton's middleware (view mode: the SDK keeps its full
 * history). `--rewrite` leaves the model alone and hands Baton the loop's `prepareStep`
 * instead: the SDK's history itself is compacted, archive first.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { createBaton } from '@baton/ai-sdk';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

const FILES = 40;

/** The offline stand-in: decides each step from exactly the prompt Baton sends. */
function scriptedModel(): LanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }: LanguageModelV4CallOptions) => {
      step++;
      const system = prompt
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n');
      const read = (/files read: (\d+)/.exec(system)?.[1] ?? '0') as string;
      const done = Number(read);
      const call = (toolName: string, input: unknown) => ({
        content: [
          { type: 'tool-call' as const, toolCallId: `c${step}`, toolName, input: JSON.stringify(input) },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
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
      });
      const lastIsNotes = JSON.stringify(prompt.at(-1)).includes('"toolName":"notes"');
      if (done >= FILES) {
        return {
          ...call('x', {}),
          content: [
            { type: 'text' as const, text: `Audited ${done} files; module_17.ts holds the leaked key.` },
          ],
          finishReason: { unified: 'stop' as const, raw: undefined },
        };
      }
      // Keep progress in the durable notes (they survive every compaction) after each read.
      if (!lastIsNotes && step > 1)
        return call('notes', { action: 'write', section: 'progress', text: `files read: ${done + 1}` });
      if (done > 0 && done % 10 === 0 && !system.includes('Context was compacted') && step % 2 === 0) {
        return call('compact', { instruction: 'keep which module holds secrets' });
      }
      return call('read_file', { path: `src/module_${done}.ts` });
    },
  });
}

async function realModel(): Promise<LanguageModelV4 | undefined> {
  if (!process.env.OPENAI_API_KEY) return undefined;
  try {
    const specifier = '@ai-sdk/openai';
    const { openai } = (await import(specifier)) as { openai: (id: string) => LanguageModelV4 };
    return openai('gpt-4o-mini');
  } catch {
    console.warn('OPENAI_API_KEY is set but @ai-sdk/openai is not installed: using the scripted model');
    return undefined;
  }
}

const baton = createBaton({
  contextWindow: 12_000, // small on purpose, so a short offline run shows every mechanism
  onEvent: (event) => {
    if (event.type === 'stage-completed')
      console.log(`  [baton] ${event.stage}: ${event.tokensBefore} -> ${event.tokensAfter} tokens`);
  },
});
const session = baton.session('audit-1');
const rewrite = process.argv.includes('--rewrite');
const model = (await realModel()) ?? scriptedModel();

const tools = {
  ...session.tools,
  read_file: tool({
    description: 'Read a source file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }: { path: string }) =>
      Array.from({ length: 60 }, (_, i) =>
        path.endsWith('module_17.ts') && i === 30
          ? 'const KEY = "sk-live-…"; // leaked'
          : `export const value_${i} = ${i * 3};`,
      ).join('\n'),
  }),
};

const result = await generateText({
  ...(rewrite
    ? // Rewrite mode: the step's history is replaced by the projection; the tools count from step 1.
      { model, prepareStep: session.prepareStepFor(tools) }
    : { model: wrapLanguageModel({ model, middleware: session.middleware }) }),
  instructions:
    'You audit source files for leaked secrets. Record progress in your notes as "files read: N".',
  prompt: `Read src/module_0.ts to src/module_${FILES - 1}.ts one by one and report which file contains a secret.`,
  tools,
  stopWhen: stepCountIs(200),
});

console.log(
  `\n${rewrite ? 'rewrite' : 'view'} mode, ${result.steps.length} steps. Final answer: ${result.text}`,
);
console.log(`notes: ${JSON.stringify(await session.core.notes.read())}`);
const leaked = await session.core.archive.search('sk-live');
console.log(
  `archive search "sk-live": ${leaked.map((r) => `seq ${r.seq}`).join(', ') || 'still in context'}`,
);
