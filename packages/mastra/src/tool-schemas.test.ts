import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolSchemasOf } from './tool-schemas.ts';

describe('toolSchemasOf', () => {
  it('counts the JSON schema the provider receives, for Mastra tools, AI SDK schemas and tools without one', () => {
    const mastra = createTool({
      id: 'search',
      description: 'Search the logs',
      inputSchema: z.object({ query: z.string().describe('WORDS-TO-FIND') }),
      execute: async () => 'x',
    });
    // The shape of an AI SDK tool built with jsonSchema(...): a Schema holding its JSON schema.
    const aiSdk = {
      description: 'Fetch a page',
      inputSchema: {
        jsonSchema: { type: 'object', properties: { url: { type: 'string', description: 'PAGE-URL' } } },
      },
    };
    const schemas = toolSchemasOf({ search: mastra, fetch: aiSdk, bare: { description: 'no schema' } });
    expect(schemas.map((s) => s.name)).toEqual(['search', 'fetch', 'bare']);
    expect(JSON.stringify(schemas[0]?.inputSchema)).toContain('WORDS-TO-FIND');
    expect(JSON.stringify(schemas[1]?.inputSchema)).toContain('PAGE-URL');
    expect(schemas[2]).toEqual({ name: 'bare', description: 'no schema' });
  });
});
