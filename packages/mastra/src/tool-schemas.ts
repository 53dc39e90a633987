import type { ToolSchema } from '@baton/core';
import { z } from 'zod/v4';

interface StandardJsonSchema {
  '~standard'?: { jsonSchema?: { input?: (options: { target: string }) => unknown } };
  /** An AI SDK `Schema` (`jsonSchema(...)`, `zodSchema(...)`). */
  jsonSchema?: unknown;
}

/** The JSON schema a provider receives for a tool's input, from whatever form the tool holds it in. */
function inputJsonSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const standard = (schema as StandardJsonSchema)['~standard']?.jsonSchema?.input;
  if (typeof standard === 'function') {
    try {
      return standard({ target: 'draft-07' });
    } catch {
      // Fall through to the other forms.
    }
  }
  const aiSdk = (schema as StandardJsonSchema).jsonSchema;
  if (typeof aiSdk === 'object' && aiSdk !== null) return aiSdk;
  if ('_zod' in schema) {
    try {
      return z.toJSONSchema(schema as z.ZodType);
    } catch {
      return undefined;
    }
  }
  // Zod 3 and other libraries' schema objects are not what the provider receives (and may be
  // cyclic): only a plain JSON schema is counted as it is.
  return '~standard' in schema || '_def' in schema ? undefined : schema;
}

/**
 * A step's tools as the core counts them: name, description and the input's JSON schema
 * (Mastra tools hold Standard Schemas, AI SDK tools a `Schema`; both are sent as JSON schema).
 */
export function toolSchemasOf(tools: Record<string, unknown> | undefined): ToolSchema[] {
  return Object.entries(tools ?? {}).map(([name, tool]) => {
    const { description, inputSchema, parameters } = tool as {
      description?: unknown;
      inputSchema?: unknown;
      parameters?: unknown;
    };
    const schema = inputJsonSchema(inputSchema ?? parameters);
    return {
      name,
      ...(typeof description === 'string' ? { description } : {}),
      ...(schema !== undefined ? { inputSchema: schema } : {}),
    };
  });
}
