import type { NeutralTool, Session } from '@baton/core';
import { type Tool, tool } from 'ai';

/** The session's agent tools (`notes`, `compact`, `recall`) as AI SDK tools, to spread into `tools`. */
// A type alias, not an interface: only an alias is assignable to the SDK's index-signature
// `ToolSet`, so `tools: session.tools` type-checks on its own, not just when spread.
export type BatonToolSet = {
  notes: Tool;
  compact: Tool;
  recall: Tool;
};

function asSdkTool(neutral: NeutralTool): Tool {
  return tool({
    description: neutral.description,
    inputSchema: neutral.inputSchema,
    // A BatonToolError reaches the model as the SDK's tool-error result, its message meant for it.
    execute: async (input: unknown) => neutral.execute(input),
  });
}

export function batonTools(session: Session): BatonToolSet {
  const byName = new Map(session.tools.map((t) => [t.name, t]));
  return {
    notes: asSdkTool(byName.get('notes')!),
    compact: asSdkTool(byName.get('compact')!),
    recall: asSdkTool(byName.get('recall')!),
  };
}
