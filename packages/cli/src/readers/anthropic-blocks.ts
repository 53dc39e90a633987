import type { OpaquePart, Part } from '@baton/core';
import { anthropicImageTokens, base64ImageSize } from '@baton/core/internals';
import { isObject, type Json } from './json.ts';
import { TranscriptFormatError } from './session-file.ts';

/*
 * Anthropic Messages content blocks as neutral parts, shared by the Claude Code reader and the
 * Anthropic message-array format: thinking kept and counted, images counted by Anthropic's
 * image rule from their real size (never their base64 as text), a tool_result's images as
 * opaque parts beside its textual output.
 */

/** What the conversion could only estimate, for the reader's notes. */
export class BlockTally {
  unknownImages = 0;
  readonly opaque = new Map<string, number>();

  count(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }
}

export function imagePart(block: Json, tally: BlockTally): OpaquePart {
  const source = block.source;
  const size =
    isObject(source) && source.type === 'base64' && typeof source.data === 'string'
      ? base64ImageSize(source.data)
      : undefined;
  if (!size) {
    tally.unknownImages++;
    return { type: 'opaque', kind: 'image', value: block };
  }
  return { type: 'opaque', kind: 'image', value: block, tokens: anthropicImageTokens(size) };
}

/** A block the reader has no text for (a document, a hosted tool's result): kept, counted at the default opaque cost. */
export function otherPart(block: Json, tally: BlockTally): OpaquePart {
  tally.count(tally.opaque, String(block.type));
  return { type: 'opaque', kind: String(block.type), value: block };
}

export function assistantParts(content: unknown, where: string, tally: BlockTally): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content))
    throw new TranscriptFormatError(`${where}: message.content is not a list of blocks`);
  return content.map((block, index): Part => {
    if (!isObject(block) || typeof block.type !== 'string')
      throw new TranscriptFormatError(`${where}: content block ${index} is not an object with a type`);
    switch (block.type) {
      case 'text':
        return { type: 'text', text: String(block.text ?? '') };
      // Billed as output when generated and sent back within the turn: counted through `text`.
      case 'thinking':
        return { type: 'opaque', kind: 'thinking', value: block, text: String(block.thinking ?? '') };
      case 'tool_use':
        if (typeof block.id !== 'string' || typeof block.name !== 'string')
          throw new TranscriptFormatError(`${where}: a tool_use block has no id or no name`);
        return { type: 'tool-call', id: block.id, name: block.name, input: block.input ?? {} };
      case 'server_tool_use':
        return { type: 'opaque', kind: block.type, value: block, text: JSON.stringify(block.input ?? {}) };
      default:
        return otherPart(block, tally);
    }
  });
}

/** A tool_result block: its text blocks as the output, its images as opaque parts in the same tool entry. */
export function toolResultParts(
  block: Json,
  names: ReadonlyMap<string, string>,
  where: string,
  tally: BlockTally,
): Part[] {
  if (typeof block.tool_use_id !== 'string')
    throw new TranscriptFormatError(`${where}: a tool_result block has no tool_use_id`);
  const extra: Part[] = [];
  let output: unknown = block.content ?? '';
  if (Array.isArray(block.content)) {
    const texts: string[] = [];
    for (const item of block.content) {
      if (isObject(item) && item.type === 'text') texts.push(String(item.text ?? ''));
      else if (isObject(item) && item.type === 'image') extra.push(imagePart(item, tally));
      else if (isObject(item)) extra.push(otherPart(item, tally));
    }
    output = texts.join('\n');
  }
  return [
    {
      type: 'tool-result',
      callId: block.tool_use_id,
      name: names.get(block.tool_use_id) ?? 'unknown',
      output,
      ...(block.is_error === true ? { isError: true } : {}),
    },
    ...extra,
  ];
}
