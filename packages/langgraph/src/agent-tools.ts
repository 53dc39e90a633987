import { BatonToolError } from '@baton/core';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import type { BaseStore } from '@langchain/langgraph';
import type { ThreadSessions } from './sessions.ts';

interface ToolRuntimeLike {
  store?: unknown;
  config?: { configurable?: { thread_id?: unknown }; store?: unknown };
  configurable?: { thread_id?: unknown };
}

/**
 * `notes`, `compact` and `recall` as LangChain tools. Each call resolves its session from
 * the run (thread id, LangGraph store), so one tool set serves every thread; a refused call
 * answers the model with the reason and the valid forms instead of failing the step.
 */
export function createBatonTools(sessions: ThreadSessions): StructuredToolInterface[] {
  return sessions.toolTemplate.map((neutral) =>
    tool(
      async (input: unknown, runtime?: ToolRuntimeLike) => {
        const store = (runtime?.store ?? runtime?.config?.store ?? undefined) as BaseStore | undefined;
        const threadId = runtime?.config?.configurable?.thread_id ?? runtime?.configurable?.thread_id;
        const session = sessions.session(store, threadId);
        const own = session.tools.find((t) => t.name === neutral.name)!;
        try {
          return JSON.stringify(await own.execute(input));
        } catch (error) {
          if (error instanceof BatonToolError) return error.message;
          throw error;
        }
      },
      { name: neutral.name, description: neutral.description, schema: neutral.inputSchema },
    ),
  ) as StructuredToolInterface[];
}
