import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import sharp from 'sharp';

/**
 * Decoded pixels of a result compared with what they were: exactly, by a hash, or within a
 * tolerance, against reference pixels kept as a lossless PNG (see result-pixels.int-spec.ts for
 * which and why).
 */

export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/** How far pixels may stray from their reference, in 8-bit levels, on every channel (alpha included). */
export interface Tolerance {
  /** The largest difference allowed in any one sample. */
  maxLevels: number;
  /** The least PSNR allowed over all samples, in dB, with a peak of 255. */
  minPsnr: number;
  /** The largest mean difference allowed over a channel of the whole image (a shift of its level). */
  maxMeanShift: number;
  /** The largest mean difference allowed over a channel of any BLOCK x BLOCK block (a shift of one part). */
  maxBlockShift: number;
}

/** Side of the blocks whose mean difference Tolerance.maxBlockShift bounds. */
export const BLOCK = 16;

/** How `actual` differs from its reference. */
export interface PixelDifference {
  maxLevels: number;
  /** The first sample with the largest difference. */
  at: { x: number; y: number; channel: number } | null;
  /** Samples that differ at all. */
  differing: number;
  /** Infinity when the pixels are the same. */
  psnr: number;
  /** The largest mean difference of a channel over the whole image, signed. */
  meanShift: number;
  /** The largest mean difference of a channel over a BLOCK x BLOCK block, signed, and the block's corner. */
  blockShift: number;
  blockAt: { x: number; y: number; channel: number } | null;
}

/** The decoded pixels of an encoded image, as sharp gives them: sRGB, with alpha where the image has it. */
export async function decodePixels(encoded: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(encoded).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

export const shapeOf = (pixels: Pixels) => `${pixels.width}x${pixels.height}x${pixels.channels}`;

/** The first 24 hex digits of the pixels' sha256. */
export const pixelHash = (pixels: Pixels) => createHash('sha256').update(pixels.data).digest('hex').slice(0, 24);

/**
 * `pixels` shrunk `factor` times: each sample the rounded mean of a `factor` x `factor` block (of
 * what is left of one at the right and bottom edges). Integer sums, so every CPU gives the same.
 */
export function reduced(pixels: Pixels, factor: number): Pixels {
  if (factor === 1) return pixels;
  const { data, width, height, channels } = pixels;
  const outWidth = Math.ceil(width / factor);
  const outHeight = Math.ceil(height / factor);
  const out = Buffer.alloc(outWidth * outHeight * channels);
  for (let row = 0; row < outHeight; row++) {
    const top = row * factor;
    const bottom = Math.min(height, top + factor);
    for (let column = 0; column < outWidth; column++) {
      const left = column * factor;
      const right = Math.min(width, left + factor);
      const count = (bottom - top) * (right - left);
      for (let channel = 0; channel < channels; channel++) {
        let sum = 0;
        for (let y = top; y < bottom; y++) {
          for (let x = left; x < right; x++) sum += data[(y * width + x) * channels + channel];
        }
        out[(row * outWidth + column) * channels + channel] = Math.floor((2 * sum + count) / (2 * count));
      }
    }
  }
  return { data: out, width: outWidth, height: outHeight, channels };
}

export function pixelDifference(reference: Pixels, actual: Pixels): PixelDifference {
  if (shapeOf(reference) !== shapeOf(actual)) {
    throw new Error(`Pixels of ${shapeOf(actual)} cannot be compared with a reference of ${shapeOf(reference)}`);
  }
  const { width, height, channels } = reference;
  const blocksAcross = Math.ceil(width / BLOCK);
  const blockSums = new Float64Array(blocksAcross * Math.ceil(height / BLOCK) * channels);
  const channelSums = new Float64Array(channels);
  let maxLevels = 0;
  let worst = -1;
  let differing = 0;
  let squares = 0;
  for (let i = 0; i < reference.data.length; i++) {
    const difference = actual.data[i] - reference.data[i];
    if (difference === 0) continue;
    const channel = i % channels;
    const pixel = (i - channel) / channels;
    const block = Math.floor(Math.floor(pixel / width) / BLOCK) * blocksAcross + Math.floor((pixel % width) / BLOCK);
    blockSums[block * channels + channel] += difference;
    channelSums[channel] += difference;
    differing++;
    squares += difference * difference;
    if (Math.abs(difference) > maxLevels) {
      maxLevels = Math.abs(difference);
      worst = i;
    }
  }
  let meanShift = 0;
  for (const sum of channelSums) if (Math.abs(sum) > Math.abs(meanShift)) meanShift = sum / (width * height);
  let blockShift = 0;
  let blockAt: PixelDifference['blockAt'] = null;
  for (let i = 0; i < blockSums.length; i++) {
    const channel = i % channels;
    const block = (i - channel) / channels;
    const x = (block % blocksAcross) * BLOCK;
    const y = Math.floor(block / blocksAcross) * BLOCK;
    const shift = blockSums[i] / ((Math.min(width, x + BLOCK) - x) * (Math.min(height, y + BLOCK) - y));
    if (Math.abs(shift) > Math.abs(blockShift)) {
      blockShift = shift;
      blockAt = { x, y, channel };
    }
  }
  const at =
    worst < 0
      ? null
      : { x: Math.floor(worst / channels) % width, y: Math.floor(worst / channels / width), channel: worst % channels };
  const psnr = squares === 0 ? Infinity : 10 * Math.log10((255 * 255 * reference.data.length) / squares);
  return { maxLevels, at, differing, psnr, meanShift, blockShift, blockAt };
}

/** Why `difference` is outside `tolerance`, or null when it is inside. */
export function outsideTolerance(difference: PixelDifference, tolerance: Tolerance): string | null {
  const reasons: string[] = [];
  const where = (at: { x: number; y: number; channel: number }) => `x ${at.x}, y ${at.y}, channel ${at.channel}`;
  if (difference.maxLevels > tolerance.maxLevels && difference.at) {
    reasons.push(
      `a sample ${difference.maxLevels} levels apart at ${where(difference.at)} (at most ${tolerance.maxLevels})`,
    );
  }
  if (difference.psnr < tolerance.minPsnr) {
    reasons.push(`PSNR ${difference.psnr.toFixed(1)} dB (at least ${tolerance.minPsnr})`);
  }
  if (Math.abs(difference.meanShift) > tolerance.maxMeanShift) {
    reasons.push(
      `a channel shifted ${difference.meanShift.toFixed(2)} levels on average (at most ${tolerance.maxMeanShift})`,
    );
  }
  if (Math.abs(difference.blockShift) > tolerance.maxBlockShift && difference.blockAt) {
    reasons.push(
      `the ${BLOCK} px block at ${where(difference.blockAt)} shifted ${difference.blockShift.toFixed(1)} levels ` +
        `on average (at most ${tolerance.maxBlockShift})`,
    );
  }
  return reasons.length === 0 ? null : `${reasons.join('; ')}; ${difference.differing} samples differ`;
}

/** Reference pixels from their PNG, or null when there is none yet. */
export async function readReference(path: string): Promise<Pixels | null> {
  const png = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  return png ? decodePixels(png) : null;
}

/**
 * `pixels` as the lossless PNG at `path`: RGB, or RGBA with alpha, as sharp decodes every image
 * (grey ones in sRGB too), so the PNG reads back as it was written.
 */
export async function writeReference(path: string, pixels: Pixels): Promise<void> {
  const { data, width, height, channels } = pixels;
  if (channels !== 3 && channels !== 4) throw new Error(`A reference holds RGB or RGBA, not ${channels} channels`);
  const png = await sharp(data, { raw: { width, height, channels } })
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer();
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, png);
}
