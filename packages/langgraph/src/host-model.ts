import type { HostModel } from '@baton/core';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { fromEntries } from './message-conversion.ts';

/** What Baton needs of a LangChain chat model: `invoke` and `withStructuredOutput`. */
export interface ChatModelLike {
  invoke(messages: BaseMessage[], options?: { signal?: AbortSignal }): Promise<{ text: string }>;
  withStructuredOutput?(schema: unknown): {
    invoke(messages: BaseMessage[], options?: { signal?: AbortSignal }): Promise<unknown>;
  };
}

const byModel = new WeakMap<object, HostModel>();

/**
 * A LangChain chat model as Baton's host model: probes through `withStructuredOutput`,
 * continuation summaries through `invoke`. The middleware uses the agent's model by itself;
 * for a hand-built graph, spread it into `selfCompact`:
 *
 * @example
 * createCompactionNode({ model: 'gpt-4o', selfCompact: { rubric: 'search', ...hostModelFor(chatModel) } })
 */
export function hostModelFor(model: ChatModelLike): Required<HostModel> {
  let host = byModel.get(model);
  if (!host) {
    host = {
      judge: async ({ entries, system, prompt, schema, signal }) => {
        if (!model.withStructuredOutput) throw new Error('the chat model has no withStructuredOutput');
        const messages = [
          ...(system.length > 0 ? [new SystemMessage(system)] : []),
          ...fromEntries(entries),
          new HumanMessage(prompt),
        ];
        return { output: await model.withStructuredOutput(schema).invoke(messages, { signal }) };
      },
      complete: async ({ system, prompt, signal }) =>
        (await model.invoke([new SystemMessage(system), new HumanMessage(prompt)], signal ? { signal } : {}))
          .text,
    };
    byModel.set(model, host);
  }
  return host as Required<HostModel>;
}
