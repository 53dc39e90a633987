import { BatonToolError } from '@baton/core';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import type { BaseStore } from '@langchain/langgraph';
import type { ThreadSessions } from './sessions.ts';

interface Configurable {
  thread_id?: unknown;
  checkpoint_ns?: unknown;
}

interface ToolRuntimeLike {
  store?: unknown;
  state?: { messages?: ReadonlyArray<{ id?: unknown }> };
  config?: { configurable?: Configurable; store?: unknown };
  configurable?: Configurable;
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
        const configurable = runtime?.config?.configurable ?? runtime?.configurable;
        const session = sessions.session(store, {
          threadId: configurable?.thread_id,
          namespace: configurable?.checkpoint_ns,
          ...(runtime?.state?.messages ? { messages: runtime.state.messages } : {}),
        });
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
