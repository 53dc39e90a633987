import { type Entry, fromOpenAIChat, type OpenAIMessage, type Tokenizer, toOpenAIChat } from '@baton/core';
import { entriesToPrompt, type PromptMessage } from '@baton/core/internals';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import {
  CORPUS_MISSING,
  corpusAvailable,
  loadCorpus,
  loadReplayCorpus,
  type Transcript,
} from './transcripts.ts';

/** The window every side-by-side bench uses, and the input budget Baton derives from it (default output reserve). */
export const BENCH_WINDOW = 32_000;
export const BENCH_BUDGET = BENCH_WINDOW - 6_400;

/** The corpus transcripts, or exit: a benchmark without the real transcripts would measure nothing. */
export function benchCorpus(): Transcript[] {
  if (!corpusAvailable) {
    console.error(CORPUS_MISSING);
    process.exit(1);
  }
  return loadCorpus();
}

/** The twelve real conversations (transcripts and sessions), or exit like `benchCorpus`. */
export function benchReplays(): Transcript[] {
  const replays = loadReplayCorpus();
  if (replays.length < 12) {
    console.error(`${CORPUS_MISSING} (or ../shared/corpus/sessions/openai is)`);
    process.exit(1);
  }
  return replays;
}

/**
 * A history of n OpenAI messages built from the transcripts: the first system prompt, then
 * their non-system messages in turn (copies get unique tool-call ids), cut so no tool call is
 * left open, ending on a new user message.
 */
export function generatedHistory(
  transcripts: readonly Transcript[],
  n: number,
  question = 'and now?',
): OpenAIMessage[] {
  const system = transcripts[0]?.messages.find((m) => m.role === 'system');
  const out: OpenAIMessage[] = system ? [system] : [];
  for (let copy = 0; out.length < n; copy++) {
    for (const t of transcripts)
      for (const m of t.messages) {
        if (m.role === 'system') continue;
        out.push({
          ...m,
          ...(m.tool_call_id ? { tool_call_id: `${m.tool_call_id}_${copy}` } : {}),
          ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ ...c, id: `${c.id}_${copy}` })) } : {}),
        });
      }
  }
  const cut = out.slice(0, n - 1);
  while (cut.at(-1)?.role === 'assistant') cut.pop();
  return [...cut, { role: 'user', content: question }];
}

/** OpenAI messages as LangChain messages (tool calls with parsed arguments). */
export function toLangChainMessages(messages: readonly OpenAIMessage[]): BaseMessage[] {
  return messages.map((m) => {
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
    if (m.role === 'system' || m.role === 'developer') return new SystemMessage(content);
    if (m.role === 'user') return new HumanMessage(content);
    if (m.role === 'tool') return new ToolMessage({ content, tool_call_id: String(m.tool_call_id) });
    return new AIMessage({
      content,
      tool_calls: (m.tool_calls ?? []).map((c) => {
        let args: Record<string, unknown>;
        try {
          args = JSON.parse(c.function.arguments) as Record<string, unknown>;
        } catch {
          args = { raw: c.function.arguments };
        }
        return { id: c.id, name: c.function.name, args, type: 'tool_call' as const };
      }),
    });
  });
}

/** OpenAI messages as the provider-shaped prompt (AI SDK `ModelMessage`s, Mastra's `processLLMRequest` prompt), fresh objects. */
export function toModelPrompt(messages: readonly OpenAIMessage[]): PromptMessage[] {
  return structuredClone(entriesToPrompt(fromOpenAIChat(messages)));
}

/**
 * The reference count, independent of Baton's counter: a tokenizer (tiktoken in the benches)
 * over what an OpenAI-style provider tokenizes (content, tool names and arguments), plus its
 * documented framing of 3 tokens per message and 3 for the reply.
 */
export function referenceTokens(entries: readonly Entry[], tokenizer: Tokenizer): number {
  let total = 3;
  for (const m of toOpenAIChat(entries)) {
    total += 3 + tokenizer.count(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''));
    for (const call of m.tool_calls ?? [])
      total += tokenizer.count(call.function.name + call.function.arguments);
  }
  return total;
}
