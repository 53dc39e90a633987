import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  anthropicImageTokens,
  base64ImageSize,
  dataUrlBase64,
  imageSize,
  openAIImageTokens,
} from './image-tokens.ts';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32(data.length), body, u32(crc32(body))]);
}

/** A complete, valid PNG: black RGB pixels, one deflated IDAT. */
function png(width: number, height: number): Buffer {
  const ihdr = Buffer.concat([u32(width), u32(height), Buffer.from([8, 2, 0, 0, 0])]);
  const rows = Buffer.alloc((1 + width * 3) * height); // filter byte 0 then black pixels, per row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const segment = (marker: number, body: Buffer) =>
  Buffer.concat([
    Buffer.from([0xff, marker]),
    Buffer.from([(body.length + 2) >> 8, (body.length + 2) & 0xff]),
    body,
  ]);

/** A baseline JPEG's header up to its frame (SOF0), after a JFIF APP0 and `appSegments` APP2 segments of 60 kB. */
function jpegHeader(width: number, height: number, appSegments = 0): Buffer {
  const sof = Buffer.from([8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\u0000\u0001\u0001\u0000\u0000\u0001\u0000\u0001\u0000\u0000', 'latin1')),
    segment(0xe1, Buffer.concat([Buffer.from('Exif\u0000\u0000', 'latin1'), Buffer.alloc(16)])),
    ...Array.from({ length: appSegments }, () => segment(0xe2, Buffer.alloc(60_000))),
    segment(0xdb, Buffer.alloc(65)),
    segment(0xc0, sof),
    Buffer.from([0xff, 0xd9]),
  ]);
}

describe('imageSize', () => {
  it('reads a PNG IHDR', () => {
    expect(imageSize(png(1000, 800))).toEqual({ width: 1000, height: 800, format: 'png' });
    expect(imageSize(png(3, 2))).toEqual({ width: 3, height: 2, format: 'png' });
  });

  it('walks JPEG segments to the frame header, and says when the bytes stop before it', () => {
    expect(imageSize(jpegHeader(640, 480))).toEqual({ width: 640, height: 480, format: 'jpeg' });
    expect(imageSize(jpegHeader(640, 480).subarray(0, 30))).toBe('truncated');
  });

  it('reads GIF and the three WebP headers', () => {
    const gif = Buffer.concat([
      Buffer.from('GIF89a', 'latin1'),
      Buffer.from([0x20, 0x03, 0x58, 0x02, 0, 0, 0]),
    ]);
    expect(imageSize(gif)).toEqual({ width: 800, height: 600, format: 'gif' });
    const riff = (chunk: string, body: number[]) =>
      Buffer.concat([
        Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBP', 'latin1'),
        Buffer.from(chunk, 'latin1'),
        Buffer.from([0, 0, 0, 0]),
        Buffer.from(body),
        Buffer.alloc(16),
      ]);
    // VP8: frame tag (3 bytes), start code 9d 01 2a, 14-bit width and height.
    expect(imageSize(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0x20, 0x03, 0x58, 0x02]))).toMatchObject({
      width: 800,
      height: 600,
    });
    // VP8L: signature 0x2f, then width-1 and height-1 in 14 bits each: 799 | 599 << 14.
    const bits = 799 | (599 << 14);
    expect(
      imageSize(riff('VP8L', [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, bits >>> 24])),
    ).toMatchObject({ width: 800, height: 600 });
    // VP8X: flags and reserved (4 bytes), then width-1 and height-1 in 24 bits.
    expect(imageSize(riff('VP8X', [0, 0, 0, 0, 0x1f, 0x03, 0, 0x57, 0x02, 0]))).toMatchObject({
      width: 800,
      height: 600,
    });
  });

  it('refuses what is not an image header', () => {
    expect(imageSize(Buffer.from('hello world, not an image at all'))).toBeUndefined();
  });
});

describe('base64ImageSize', () => {
  it('decodes only the start, and all of a JPEG whose metadata pushes the frame past it', () => {
    expect(base64ImageSize(png(1000, 800).toString('base64'))).toMatchObject({ width: 1000, height: 800 });
    const late = jpegHeader(4032, 3024, 3).toString('base64');
    expect(late.length).toBeGreaterThan(64 * 1024);
    expect(base64ImageSize(late)).toEqual({ width: 4032, height: 3024, format: 'jpeg' });
    expect(base64ImageSize('bm90IGFuIGltYWdl')).toBeUndefined();
  });

  it('takes the payload of a data URL only', () => {
    expect(dataUrlBase64('data:image/png;base64,AAAA')).toBe('AAAA');
    expect(dataUrlBase64('https://example.com/a.png')).toBeUndefined();
  });
});

describe('anthropicImageTokens', () => {
  it('counts width * height / 750 under the limits', () => {
    expect(anthropicImageTokens({ width: 1000, height: 800 })).toBe(1067);
    expect(anthropicImageTokens({ width: 200, height: 200 })).toBe(54);
  });

  it('scales down to a 1568 px long edge and about 1.19 megapixels first', () => {
    // Anthropic's table: 1092x1092 is not resized and costs about 1,590 tokens.
    expect(anthropicImageTokens({ width: 1092, height: 1092 })).toBe(Math.ceil((1092 * 1092) / 750));
    // 784x1568 fits the edge but holds 1.23 MP: scaled to ~1.19 MP.
    expect(anthropicImageTokens({ width: 784, height: 1568 })).toBeLessThanOrEqual(1590);
    expect(anthropicImageTokens({ width: 784, height: 1568 })).toBeGreaterThan(1580);
    // A 4000x100 strip: the long edge rule alone (1568x39).
    expect(anthropicImageTokens({ width: 4000, height: 100 })).toBe(Math.ceil((1568 * 39) / 750));
    // A 12-megapixel photo costs no more than the cap.
    expect(anthropicImageTokens({ width: 4032, height: 3024 })).toBeLessThanOrEqual(1590);
  });
});

describe('openAIImageTokens', () => {
  it('follows the published examples', () => {
    expect(openAIImageTokens({ width: 1024, height: 1024 }, 'high')).toBe(765); // 768x768, 4 tiles
    expect(openAIImageTokens({ width: 2048, height: 4096 }, 'high')).toBe(1105); // 768x1536, 6 tiles
    expect(openAIImageTokens({ width: 4096, height: 8192 }, 'low')).toBe(85);
    expect(openAIImageTokens({ width: 500, height: 300 })).toBe(255); // auto as high: one tile
  });
});
