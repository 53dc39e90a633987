import type { ToolSchema } from '@baton/core';
import { toJsonSchema } from '@langchain/core/utils/json_schema';

/** What a LangChain tool (or a provider tool definition) exposes of itself. */
export interface ToolLike {
  name?: string;
  description?: string;
  schema?: unknown;
  /** OpenAI-format definitions (`bindTools` accepts them too). */
  function?: { name?: string; description?: string; parameters?: unknown };
}

function inputSchemaOf(tool: ToolLike): unknown {
  if (tool.function?.parameters !== undefined) return tool.function.parameters;
  if (tool.schema === undefined) return undefined;
  try {
    return toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]);
  } catch {
    // A schema LangChain cannot convert is still sent in some form: count what it serialises to.
    return tool.schema;
  }
}

/**
 * The tools of a model call as the core counts them: name, description and the JSON schema
 * the provider receives (the schemas are often most of the tools' tokens).
 */
export function toolSchemasOf(tools: ReadonlyArray<ToolLike> | undefined): ToolSchema[] {
  return (tools ?? []).map((tool) => {
    const name = tool.name ?? tool.function?.name ?? 'tool';
    const description = tool.description ?? tool.function?.description;
    const inputSchema = inputSchemaOf(tool);
    return {
      name,
      ...(description ? { description } : {}),
      ...(inputSchema !== undefined ? { inputSchema } : {}),
    };
  });
}
