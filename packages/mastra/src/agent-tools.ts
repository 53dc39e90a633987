import { BatonToolError, type NeutralTool, type Session } from '@baton/core';
import { createTool } from '@mastra/core/tools';

export type MastraTool = ReturnType<typeof createTool>;

function asMastraTool(neutral: NeutralTool): MastraTool {
  return createTool({
    id: neutral.name,
    description: neutral.description,
    inputSchema: neutral.inputSchema,
    // A refused call answers the model with the reason and the valid forms; the step goes on.
    execute: async (input: unknown) => {
      try {
        return await neutral.execute(input);
      } catch (error) {
        if (error instanceof BatonToolError) return { error: error.message };
        throw error;
      }
    },
  }) as MastraTool;
}

const toolsOf = new WeakMap<Session, Record<string, MastraTool>>();

/** The session's `notes`, `compact` and `recall` as Mastra tools (built once per session). */
export function batonTools(session: Session): Record<string, MastraTool> {
  let tools = toolsOf.get(session);
  if (!tools) {
    tools = Object.fromEntries(session.tools.map((t) => [t.name, asMastraTool(t)]));
    toolsOf.set(session, tools);
  }
  return tools;
}
