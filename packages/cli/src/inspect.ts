import { type Entry, entryText, firstLine, TokenCounter, type Tokenizer } from '@baton/core';

export interface Inspection {
  messages: number;
  total: number;
  byRole: Array<{ role: string; messages: number; tokens: number }>;
  byTool: Array<{ tool: string; calls: number; resultTokens: number; largest: number }>;
  largest: Array<{ index: number; role: string; tool?: string; tokens: number; preview: string }>;
  /** Pinning a tool keeps every one of its results verbatim: what that would take of the budget. */
  pinning: Array<{ tool: string; tokens: number; shareOfBudget: number }>;
}

export function inspectTranscript(
  entries: readonly Entry[],
  tokenizer: Tokenizer,
  budget: number,
  /** Tokens of an image or other opaque part that reports none (Baton's `opaqueTokens` option). */
  opaqueTokens = 512,
): Inspection {
  const counter = new TokenCounter(tokenizer, opaqueTokens);
  const counts = entries.map((e) => counter.raw(e));
  const roles = new Map<string, { messages: number; tokens: number }>();
  const tools = new Map<string, { calls: number; resultTokens: number; largest: number }>();
  const toolOf = (entry: Entry) => {
    const result = entry.parts.find((p) => p.type === 'tool-result');
    return result?.type === 'tool-result' ? result.name : undefined;
  };
  entries.forEach((entry, i) => {
    const tokens = counts[i] as number;
    const role = roles.get(entry.role) ?? { messages: 0, tokens: 0 };
    role.messages++;
    role.tokens += tokens;
    roles.set(entry.role, role);
    for (const part of entry.parts) {
      if (part.type === 'tool-call') {
        const tool = tools.get(part.name) ?? { calls: 0, resultTokens: 0, largest: 0 };
        tool.calls++;
        tools.set(part.name, tool);
      }
    }
    const name = toolOf(entry);
    if (name) {
      const tool = tools.get(name) ?? { calls: 0, resultTokens: 0, largest: 0 };
      tool.resultTokens += tokens;
      tool.largest = Math.max(tool.largest, tokens);
      tools.set(name, tool);
    }
  });
  const byTool = [...tools]
    .map(([tool, t]) => ({ tool, ...t }))
    .sort((a, b) => b.resultTokens - a.resultTokens);
  return {
    messages: entries.length,
    total: counts.reduce((a, b) => a + b, 0),
    byRole: [...roles].map(([role, r]) => ({ role, ...r })).sort((a, b) => b.tokens - a.tokens),
    byTool,
    largest: entries
      .map((entry, index) => {
        const tool = toolOf(entry);
        return {
          index,
          role: entry.role,
          ...(tool ? { tool } : {}),
          tokens: counts[index] as number,
          preview: firstLine(entryText(entry), 70),
        };
      })
      .sort((a, b) => b.tokens - a.tokens)
      .slice(0, 10),
    pinning: byTool.map((t) => ({
      tool: t.tool,
      tokens: t.resultTokens,
      shareOfBudget: t.resultTokens / budget,
    })),
  };
}
