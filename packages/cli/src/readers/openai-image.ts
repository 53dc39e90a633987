import type { OpaquePart } from '@baton/core';
import {
  base64ImageSize,
  dataUrlBase64,
  imageTokens,
  type OpenAIImageDetail,
  openAIImageTokens,
  UNKNOWN_IMAGE_TOKENS,
} from '@baton/core/internals';

/*
 * An image in an OpenAI-style message (LangChain's and Mastra's stored messages, smolagents'
 * records) priced by OpenAI's rule from the size its header declares, never its base64 as text.
 */

/** Assumed when an image's size cannot be read (a URL, a file id): 1024x1024, 765 tokens by OpenAI's rule. */
const UNKNOWN_IMAGE = { width: 1024, height: 1024 };

/** Counts what a conversion assumed, for the notes. */
export interface ImageTally {
  unsized: number;
}

/** A string that is bare base64 (not a URL): what LangChain's and Mastra's `data` fields hold. */
function rawBase64(source: string): string | undefined {
  return /^[A-Za-z0-9+/=\s]+$/.test(source.slice(0, 256)) ? source : undefined;
}

/**
 * The pixel size an inline image declares: a `data:` URL's base64 payload, or bare base64;
 * undefined for a URL, a file id, or bytes that are not PNG, JPEG, GIF or WebP.
 *
 * @example inlineImageSize(`data:image/png;base64,${png}`) // { width: 1536, height: 1024, format: 'png' }
 */
export function inlineImageSize(source: string | undefined): { width: number; height: number } | undefined {
  const base64 = source === undefined ? undefined : (dataUrlBase64(source) ?? rawBase64(source));
  return base64 === undefined ? undefined : base64ImageSize(base64);
}

/**
 * An image as an opaque part priced by OpenAI's rule (`detail` `low` or `high`, anything else
 * `auto`) at `size`; without one, priced as 1024x1024 (765 tokens) and counted in
 * `tally.unsized` when the caller reports it. The image itself is kept in `value`.
 *
 * @example openAIImagePart(block, inlineImageSize(block.url), 'low', tally) // { type: 'opaque', kind: 'image', value: block, tokens: 85 }
 */
export function openAIImagePart(
  value: unknown,
  size: { width: number; height: number } | undefined,
  detail: unknown,
  tally?: ImageTally,
): OpaquePart {
  if (!size && tally) tally.unsized++;
  const level: OpenAIImageDetail = detail === 'low' || detail === 'high' ? detail : 'auto';
  return { type: 'opaque', kind: 'image', value, tokens: openAIImageTokens(size ?? UNKNOWN_IMAGE, level) };
}

/**
 * An image in a store that does not say which provider read it (LangGraph checkpoints, Mastra
 * storage): priced by the larger of Anthropic's and OpenAI's rules, as core counts it, so a
 * Claude-backed agent's screenshot is not under-counted by OpenAI's tiles; an explicit
 * `detail: 'low'` is OpenAI's and costs 85. Unknown sizes cost the image cap (1,600).
 */
export function anyProviderImagePart(
  value: unknown,
  size: { width: number; height: number } | undefined,
  detail: unknown,
  tally?: ImageTally,
): OpaquePart {
  if (detail === 'low') return { type: 'opaque', kind: 'image', value, tokens: 85 };
  if (!size && tally) tally.unsized++;
  return {
    type: 'opaque',
    kind: 'image',
    value,
    tokens: size ? imageTokens({ ...size, format: 'png' }, UNKNOWN_IMAGE_TOKENS) : UNKNOWN_IMAGE_TOKENS,
  };
}

/** The note for images priced at the assumed size, if any. */
export function imageNote(tally: ImageTally): string[] {
  return tally.unsized > 0
    ? [
        `${tally.unsized} image(s) whose size cannot be read from the file (a URL, a file id) counted at the image cap: ${UNKNOWN_IMAGE_TOKENS.toLocaleString('en-US')} tokens each`,
      ]
    : [];
}
