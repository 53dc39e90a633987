import { anthropicRuleViolations } from './anthropic.ts';
import { bedrockRuleViolations } from './bedrock.ts';
import type { WireBody } from './common.ts';
import { geminiRuleViolations } from './gemini.ts';
import { openaiChatRuleViolations } from './openai-chat.ts';
import { openaiResponsesRuleViolations } from './openai-responses.ts';

export { anthropicCount, anthropicRuleViolations, anthropicWire } from './anthropic.ts';
export { bedrockCount, bedrockRuleViolations, bedrockWire } from './bedrock.ts';
export {
  countText,
  type ProviderWire,
  type ProviderWireOptions,
  type WireBody,
  type WireCacheUsage,
  type WireRequest,
  type WireScriptInput,
  type WireTurn,
} from './common.ts';
export { geminiCount, geminiRuleViolations, geminiWire } from './gemini.ts';
export { openaiChatCount, openaiChatRuleViolations, openaiChatWire } from './openai-chat.ts';
export {
  openaiResponsesCount,
  openaiResponsesRuleViolations,
  openaiResponsesWire,
} from './openai-responses.ts';

/** The wire formats the stubs speak. */
export type WireFormat = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini' | 'bedrock';

const checkers: Record<WireFormat, (body: WireBody) => string[]> = {
  anthropic: anthropicRuleViolations,
  'openai-chat': openaiChatRuleViolations,
  'openai-responses': openaiResponsesRuleViolations,
  gemini: geminiRuleViolations,
  bedrock: bedrockRuleViolations,
};

/**
 * The provider's structural rules a recorded request body breaks (tool calls answered by
 * results with matching ids in the right place, no result without its call, no empty text),
 * each worded after the provider's own 400. An empty list: the provider would accept it.
 *
 * @example
 * for (const request of wire.requests) expect(providerRuleViolations('anthropic', request.body)).toEqual([]);
 */
export function providerRuleViolations(format: WireFormat, body: WireBody): string[] {
  const check = checkers[format];
  if (!check) throw new TypeError(`[baton] [provider-wire] unknown wire format ${JSON.stringify(format)}`);
  return check(body);
}
