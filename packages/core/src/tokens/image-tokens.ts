/**
 * What an image costs the model: its pixel size read from the file header (PNG, JPEG, GIF,
 * WebP; never the whole image decoded), then the provider's published rule. The base64 itself
 * is never counted as text: a 100 kB screenshot is ~130k characters of base64 but about a
 * thousand tokens to the model.
 */

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

/** Pixel size of an image, from its header. */
export interface ImageSize {
  width: number;
  height: number;
  format: ImageFormat;
}

const u16be = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u16le = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, i: number) => u16le(b, i) | ((b[i + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, i: number) => u16be(b, i) * 0x10000 + u16be(b, i + 2);
const u32le = (b: Uint8Array, i: number) => u16le(b, i) + u16le(b, i + 2) * 0x10000;
const ascii = (b: Uint8Array, start: number, end: number) => String.fromCharCode(...b.subarray(start, end));

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The JPEG frame header's size, 'truncated' when the bytes end before it, undefined when not a JPEG. */
function jpegSize(b: Uint8Array): ImageSize | 'truncated' | undefined {
  if (b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 3 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // Markers without a length: TEM, RSTn, SOI, EOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      i += 2;
      continue;
    }
    // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) are not frames.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 9 > b.length) return 'truncated';
      return { width: u16be(b, i + 7), height: u16be(b, i + 5), format: 'jpeg' };
    }
    i += 2 + u16be(b, i + 2);
  }
  return 'truncated';
}

/**
 * The pixel size an image header declares, or undefined for another format or a damaged
 * header. 'truncated' when the bytes are a JPEG cut before its frame header (EXIF thumbnails
 * can push it past any fixed prefix).
 */
export function imageSize(bytes: Uint8Array): ImageSize | 'truncated' | undefined {
  const b = bytes;
  if (b.length >= 24 && PNG_SIGNATURE.every((v, i) => b[i] === v)) {
    // Apple's CgBI variant puts a chunk before IHDR: look for IHDR in the first chunks.
    for (let i = 8; i + 16 <= b.length && i < 64; i += 12 + u32be(b, i)) {
      if (ascii(b, i + 4, i + 8) === 'IHDR')
        return { width: u32be(b, i + 8), height: u32be(b, i + 12), format: 'png' };
    }
    return undefined;
  }
  if (b.length >= 10 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a'))
    return { width: u16le(b, 6), height: u16le(b, 8), format: 'gif' };
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') {
    const chunk = ascii(b, 12, 16);
    if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a)
      return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff, format: 'webp' };
    if (chunk === 'VP8L' && b[20] === 0x2f) {
      const bits = u32le(b, 21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, format: 'webp' };
    }
    if (chunk === 'VP8X') return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1, format: 'webp' };
    return undefined;
  }
  return jpegSize(b);
}

/** Base64 characters decoded first: enough for every header but a JPEG with a large EXIF block. */
const PREFIX_CHARS = 64 * 1024;

/** The pixel size of a base64-encoded image (a data URL's payload), decoding only its start when that suffices. */
export function base64ImageSize(base64: string): ImageSize | undefined {
  const head = imageSize(Buffer.from(base64.slice(0, PREFIX_CHARS), 'base64'));
  if (head !== 'truncated') return head;
  if (base64.length <= PREFIX_CHARS) return undefined;
  const whole = imageSize(Buffer.from(base64, 'base64'));
  return whole === 'truncated' ? undefined : whole;
}

/** The base64 payload of a `data:<type>;base64,` URL, or undefined for any other URL. */
export function dataUrlBase64(url: string): string | undefined {
  const match = /^data:[^,;]*(?:;[^,;]*)*;base64,/i.exec(url);
  return match ? url.slice(match[0].length) : undefined;
}

/** Anthropic scales an image down until its long edge is at most this many pixels. */
export const ANTHROPIC_MAX_EDGE = 1568;
/**
 * ...and it holds at most about this many pixels. The docs say "about 1.15 megapixels", but
 * their own table leaves 1092x1092 (1.19 MP, about 1,590 tokens) unresized: the larger bound
 * is taken, so a count never falls below the bill.
 */
export const ANTHROPIC_MAX_PIXELS = 1092 * 1092;

/**
 * Anthropic's rule (docs, "Vision": calculate image costs): an image is first scaled down,
 * aspect kept, to fit a 1568 px long edge and about 1.19 megapixels, then costs
 * `ceil(width * height / 750)` tokens. 1000x800 costs 1067; anything large about 1590.
 *
 * @example anthropicImageTokens({ width: 1000, height: 800 }) // 1067
 */
export function anthropicImageTokens({ width, height }: { width: number; height: number }): number {
  if (!(width > 0 && height > 0)) return 0;
  const scale = Math.min(
    1,
    ANTHROPIC_MAX_EDGE / Math.max(width, height),
    Math.sqrt(ANTHROPIC_MAX_PIXELS / (width * height)),
  );
  const w = Math.max(1, Math.floor(width * scale));
  const h = Math.max(1, Math.floor(height * scale));
  return Math.ceil((w * h) / 750);
}

/** `detail` of an OpenAI image input; `auto` lets the model choose, counted as `high` (the upper bound). */
export type OpenAIImageDetail = 'low' | 'high' | 'auto';

/**
 * OpenAI's rule for GPT-4o-class models (docs, "Images and vision": calculating costs): `low`
 * detail costs 85 tokens; `high` (and `auto`, counted as `high`) fits the image in 2048x2048,
 * scales it so its shortest side is at most 768 px, and costs 85 + 170 per 512 px tile.
 * Newer patch-based models (gpt-4.1-mini, o4-mini) count differently; this is the classic rule.
 *
 * @example openAIImageTokens({ width: 1024, height: 1024 }) // 765
 */
export function openAIImageTokens(
  { width, height }: { width: number; height: number },
  detail: OpenAIImageDetail = 'auto',
): number {
  if (detail === 'low') return 85;
  if (!(width > 0 && height > 0)) return 85;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  let w = width * fit;
  let h = height * fit;
  const shortest = Math.min(1, 768 / Math.min(w, h));
  w = Math.floor(w * shortest);
  h = Math.floor(h * shortest);
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}
