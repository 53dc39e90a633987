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

/** A message copied into round `round` of a long run: its tool-call ids made unique to that copy. */
function inRound(m: OpenAIMessage, suffix: string): OpenAIMessage {
  return {
    ...m,
    ...(m.tool_call_id ? { tool_call_id: `${m.tool_call_id}_${suffix}` } : {}),
    ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ ...c, id: `${c.id}_${suffix}` })) } : {}),
  };
}

/**
 * The shortest head of a long run with at least `n` messages that leaves no tool call open
 * (it stops right before an assistant message): a whole conversation to replay.
 */
function closedAt(messages: OpenAIMessage[], n: number): OpenAIMessage[] {
  let end = Math.min(n, messages.length);
  while (end < messages.length && messages[end]?.role !== 'assistant') end++;
  return messages.slice(0, end);
}

/**
 * A long run of at least `n` messages (more only by the tool results that close its last call):
 * the first system prompt, then the transcripts' non-system messages back to back, again and
 * again; round `r` suffixes every tool-call id with `_r<r>`, so no id repeats across rounds.
 *
 * @example
 * const run = backToBackRun(loadCorpus(), 2_000); // ~2,000 messages, 2+ rounds of five tasks
 */
export function backToBackRun(transcripts: readonly Transcript[], n: number): Transcript {
  const system = transcripts[0]?.messages.find((m) => m.role === 'system');
  const out: OpenAIMessage[] = system ? [system] : [];
  // One round past `n`, so the cut can always close the last call.
  for (let round = 0; out.length < n + 1_000; round++)
    for (const t of transcripts)
      for (const m of t.messages) if (m.role !== 'system') out.push(inRound(m, `r${round}`));
  return { name: `back to back, ${n.toLocaleString('en-US')} messages`, messages: closedAt(out, n) };
}

/**
 * One long task that keeps coming back to early material: the rounds of `backToBackRun`, and
 * at the start of every later round the agent re-reads `revisits` of the first round's files,
 * in turn (a first-round assistant message that calls tools, its results as they were, and the
 * assistant message that used them, copied with ids suffixed `_r<r>v<k>`). The paths and names
 * those calls and answers use first appeared in round 0: hundreds of messages back.
 *
 * @example
 * const run = revisitingRun(loadCorpus(), 2_000);
 */
export function revisitingRun(transcripts: readonly Transcript[], n: number, revisits = 3): Transcript {
  const round = (r: number) =>
    transcripts.flatMap((t) => t.messages.filter((m) => m.role !== 'system').map((m) => inRound(m, `r${r}`)));
  const first = round(0);
  // Each block: an assistant message calling tools, all its results, and the answer after them.
  const blocks: OpenAIMessage[][] = [];
  for (let i = 0; i < first.length; i++) {
    const call = first[i]!;
    if (call.role !== 'assistant' || !call.tool_calls?.length) continue;
    let j = i + 1;
    while (first[j]?.role === 'tool') j++;
    const answer = first[j];
    if (j - i - 1 === call.tool_calls.length && answer?.role === 'assistant' && !answer.tool_calls?.length)
      blocks.push(first.slice(i, j + 1));
  }
  const system = transcripts[0]?.messages.find((m) => m.role === 'system');
  const out: OpenAIMessage[] = system ? [system, ...first] : [...first];
  let next = 0;
  for (let r = 1; out.length < n + 1_000; r++) {
    for (let k = 0; k < revisits && blocks.length > 0; k++) {
      const block = blocks[next++ % blocks.length]!;
      for (const m of block) out.push(inRound(m, `r${r}v${k}`));
    }
    out.push(...round(r));
  }
  return {
    name: `one task revisiting its start, ${n.toLocaleString('en-US')} messages`,
    messages: closedAt(out, n),
  };
}
