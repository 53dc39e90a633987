import {
  anthropicImageTokens,
  base64ImageSize,
  dataUrlBase64,
  type ImageSize,
  openAIImageTokens,
} from './image-tokens.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An image or file a tool returned inside a structured output: what the model gets as media, not text. */
export interface OutputMedia {
  mediaType: string | undefined;
  /** The base64 payload when the output carries the bytes inline (absent for a URL or a provider reference). */
  base64: string | undefined;
}

/**
 * The media node shapes hosts put in tool outputs: AI SDK file parts (`{ type: 'file',
 * mediaType, data: { type: 'data', data } }`, and the older `media` / `image-data` /
 * `file-data`), Anthropic image and document blocks (`{ type: 'image', source }`), OpenAI
 * image parts (`image_url` / `input_image` with a data URL). Anything else is text to the model.
 */
export function outputMedia(node: unknown): OutputMedia | undefined {
  if (!isObject(node) || typeof node.type !== 'string') return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const bytes = (v: unknown) =>
    typeof v === 'string' ? v : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : undefined;
  switch (node.type) {
    case 'file':
      if (typeof node.mediaType !== 'string' || node.data === undefined) return undefined;
      return {
        mediaType: node.mediaType,
        base64: isObject(node.data)
          ? node.data.type === 'data'
            ? bytes(node.data.data)
            : undefined
          : bytes(node.data),
      };
    case 'media':
    case 'image-data':
    case 'file-data':
      if (node.data === undefined) return undefined;
      return { mediaType: text(node.mediaType), base64: bytes(node.data) };
    case 'image':
    case 'document':
      // A document with a text source is text to the model, counted as text.
      if (isObject(node.source) && node.source.type === 'text') return undefined;
      // LangChain's standard blocks: { type: 'image', source_type: 'base64', data, mime_type }.
      if (
        typeof node.data === 'string' &&
        (node.source_type === 'base64' || typeof node.mime_type === 'string')
      )
        return {
          mediaType: text(node.mime_type) ?? (node.type === 'image' ? 'image/*' : undefined),
          base64: node.data,
        };
      if (!isObject(node.source)) return undefined;
      return {
        mediaType: text(node.source.media_type) ?? (node.type === 'image' ? 'image/*' : undefined),
        base64: node.source.type === 'base64' ? text(node.source.data) : undefined,
      };
    case 'image_url':
    case 'input_image': {
      const url = isObject(node.image_url) ? text(node.image_url.url) : text(node.image_url);
      if (url === undefined) return undefined;
      return { mediaType: 'image/*', base64: dataUrlBase64(url) };
    }
    default:
      return undefined;
  }
}

/**
 * Tokens of one image when the provider is not known: the larger of Anthropic's and OpenAI's
 * published rules (a budget must hold whichever model reads it); `fallback` when the size
 * cannot be read from the bytes.
 */
export function imageTokens(size: ImageSize | undefined, fallback: number): number {
  return size ? Math.max(anthropicImageTokens(size), openAIImageTokens(size, 'high')) : fallback;
}

/** What a tool output is to the model: its text with the media of its content list left out, and those media. */
export function splitOutputMedia(output: object): { text: string; media: OutputMedia[] } {
  const media: OutputMedia[] = [];
  // Only the parts of a content list are media (an AI SDK `content` output, an Anthropic
  // tool_result's blocks, an OpenAI tool message's parts): a JSON value that merely nests an
  // image-shaped object is sent to the model as text, and counted as text.
  const parts = new Set<unknown>(Array.isArray(output) ? output : []);
  let text: string;
  try {
    text =
      JSON.stringify(output, (_key, value: unknown) => {
        const found = parts.has(value) ? outputMedia(value) : undefined;
        if (!found) return value;
        media.push(found);
        return `[${found.mediaType ?? 'media'}]`;
      }) ?? '';
  } catch {
    text = String(output);
  }
  return { text, media };
}

/** What an image costs at most when its size cannot be read: Anthropic's cap (about 1.19 MP), above OpenAI's high-detail maximum (1,445). */
export const UNKNOWN_IMAGE_TOKENS = 1_600;

/**
 * Tokens of one media item, never below what a provider bills for it: an image by its size
 * (`UNKNOWN_IMAGE_TOKENS` when the size cannot be read); another file with inline bytes (a PDF)
 * as its base64 text, an upper bound, since what it costs depends on its pages; a file behind a
 * URL or a provider reference at `fallback`, the only estimate there is.
 */
export function mediaTokens(
  item: OutputMedia,
  fallback: number,
  countText: (text: string) => number,
): number {
  const isImage = item.mediaType === undefined || item.mediaType.startsWith('image/');
  if (item.base64 === undefined) return isImage ? UNKNOWN_IMAGE_TOKENS : fallback;
  if (!isImage) return countText(item.base64);
  return imageTokens(base64ImageSize(item.base64), UNKNOWN_IMAGE_TOKENS);
}

/**
 * Tokens a structured tool output costs: its text, and each image by its size (other files at
 * `fallback`). A screenshot a tool returned is about a thousand tokens, not the 130k its base64
 * would count as text.
 */
export function mediaAwareOutputTokens(
  output: object,
  countText: (text: string) => number,
  fallback: number,
): number {
  const { text, media } = splitOutputMedia(output);
  let tokens = countText(text);
  for (const item of media) {
    const isImage = item.mediaType === undefined || item.mediaType.startsWith('image/');
    tokens +=
      isImage && item.base64 !== undefined ? imageTokens(base64ImageSize(item.base64), fallback) : fallback;
  }
  return tokens;
}
