import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import type { OutputFormat } from './output-format';

export interface SimulatedResultSpec {
  width: number;
  height: number;
  format: OutputFormat;
  /** Drawn on the image, so a person looking at a sandbox result sees what produced it. */
  label: string;
  /** The same seed always gives the same colours (a result id, say). */
  seed: string;
  /** One grey channel instead of colour, as a mask result is. */
  greyscale?: boolean;
}

export interface ImageDescription {
  width: number;
  height: number;
  /** sharp's name for the format: `png`, `jpeg`, `webp`, ... */
  format: string;
}

/** Longest side of a thumbnail (contract section 13). */
export const THUMBNAIL_LONG_SIDE = 256;

/** Generated images are small by design; this only stops a bad caller allocating gigabytes. */
const MAX_RENDER_SIDE = 4096;

const MIN_FONT_SIZE = 8;

/** Characters XML 1.0 cannot carry at all, even escaped; librsvg refuses the whole SVG on one. */
// eslint-disable-next-line no-control-regex -- the control characters XML allows are exactly what this class must name
const XML_INVALID_CHARS = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  return text.replace(XML_INVALID_CHARS, '').replace(/[&<>"']/g, (char) => XML_ENTITIES[char]);
}

function assertRenderSide(name: string, side: number): void {
  if (!Number.isInteger(side) || side < 1 || side > MAX_RENDER_SIDE) {
    throw new RangeError(`${name} must be an integer from 1 to ${MAX_RENDER_SIDE}, got ${side}`);
  }
}

/** Cuts a label (as code points) to `maxChars`, marking the cut with an ellipsis. */
function fitLabel(chars: string[], maxChars: number): string {
  if (chars.length <= maxChars) return chars.join('');
  return `${chars.slice(0, Math.max(0, maxChars - 1)).join('')}…`;
}

/** Gradient end points for each of the four directions a palette can pick. */
const GRADIENT_DIRECTIONS = [
  'x1="0" y1="0" x2="1" y2="1"',
  'x1="1" y1="0" x2="0" y2="1"',
  'x1="0" y1="0" x2="0" y2="1"',
  'x1="0" y1="0" x2="1" y2="0"',
];

/** Two hues and a direction from the seed's hash, so each result looks different but stable. */
function paletteOf(seed: string): { from: string; to: string; direction: number } {
  const hash = createHash('sha256').update(seed).digest();
  const hue = hash.readUInt16BE(0) % 360;
  const shift = 60 + (hash[2] % 120);
  const hsl = (h: number, l: number) => `hsl(${h % 360}, 65%, ${l}%)`;
  return { from: hsl(hue, 55), to: hsl(hue + shift, 35), direction: hash[3] % GRADIENT_DIRECTIONS.length };
}

/**
 * Everything the service does with pixels. The only module that imports sharp, so a different
 * image library (or a remote one) replaces this class and nothing else.
 */
@Injectable()
export class ImageService {
  /**
   * A sandbox result: a gradient chosen by `seed`, with `label` written across it. Encoded
   * with fixed settings, so the same spec gives the same bytes (given the same fonts and libvips).
   */
  async renderSimulatedResult(spec: SimulatedResultSpec): Promise<Buffer> {
    const { width, height } = spec;
    assertRenderSide('width', width);
    assertRenderSide('height', height);
    const palette = paletteOf(spec.seed);
    const label = Array.from(spec.label.replace(XML_INVALID_CHARS, ''));
    // About 16 average glyphs across the image, smaller for a longer label (DejaVu Sans glyphs
    // average ~0.6 em); librsvg ignores `textLength`, so fitting is done here.
    const fontSize = Math.max(
      MIN_FONT_SIZE,
      Math.floor(Math.min(width / 16, height / 6, (width * 0.9) / (Math.max(label.length, 1) * 0.6))),
    );
    const text = escapeXml(fitLabel(label, Math.floor((width * 0.9) / (fontSize * 0.6))));
    // Background and label in one SVG, drawn by librsvg in a single pass (no raw intermediate).
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<defs><linearGradient id="g" ${GRADIENT_DIRECTIONS[palette.direction]}>` +
      `<stop offset="0" stop-color="${palette.from}"/><stop offset="1" stop-color="${palette.to}"/>` +
      `</linearGradient></defs>` +
      `<rect width="100%" height="100%" fill="url(#g)"/>` +
      `<text x="50%" y="50%" dominant-baseline="middle" text-anchor="middle" ` +
      `font-family="DejaVu Sans, Arial, sans-serif" ` +
      `font-size="${fontSize}" fill="#ffffff" fill-opacity="0.92">${text}</text>` +
      `</svg>`;
    const image = spec.greyscale ? sharp(Buffer.from(svg)).removeAlpha().toColourspace('b-w') : sharp(Buffer.from(svg));
    switch (spec.format) {
      case 'png':
        // Fast zlib level: sandbox images only exercise an integration, so size hardly matters.
        return image.png({ compressionLevel: 3 }).toBuffer();
      case 'jpg':
        return image.jpeg({ quality: 85 }).toBuffer();
      case 'webp':
        // Low effort: default effort 4 alone takes longer than rendering the picture.
        return image.webp({ quality: 80, effort: 1 }).toBuffer();
      case 'avif':
        // Lowest effort, for the same reason: a sandbox picture's size hardly matters.
        return image.avif({ quality: 60, effort: 0 }).toBuffer();
    }
  }

  /**
   * A WebP no larger than 256 px on its longest side, upright (EXIF orientation applied, since
   * the metadata that says how to turn the picture is dropped). Small images are not enlarged.
   */
  async thumbnail(image: Buffer): Promise<Buffer> {
    return sharp(image)
      .autoOrient()
      .resize(THUMBNAIL_LONG_SIDE, THUMBNAIL_LONG_SIDE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
  }

  /**
   * Size as a viewer shows it (EXIF orientation applied) and format. Rejects (with sharp's
   * error) when the bytes are not an image sharp can read.
   */
  async describe(image: Buffer): Promise<ImageDescription> {
    const metadata = await sharp(image).metadata();
    const width = metadata.autoOrient?.width ?? metadata.width;
    const height = metadata.autoOrient?.height ?? metadata.height;
    if (!width || !height || !metadata.format) throw new Error('The image has no readable size or format');
    return { width, height, format: metadata.format };
  }
}
