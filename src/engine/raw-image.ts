import sharp from 'sharp';

/** Decoded 8-bit sRGB pixels, interleaved: RGB, or RGBA when the image has transparency. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

export interface Rgba {
  r: number;
  g: number;
  b: number;
  alpha: number;
}

export interface Size {
  width: number;
  height: number;
}

/** A sharp pipeline that starts from raw pixels: no decode, no colour conversion. */
export function fromRaw(image: RawImage): sharp.Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
}

/** Runs a pipeline to raw 8-bit pixels. */
export async function toRaw(pipeline: sharp.Sharp): Promise<RawImage> {
  const { data, info } = await pipeline.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 3 && info.channels !== 4)
    throw new Error(`Expected RGB or RGBA pixels, got ${info.channels} channels`);
  return { data, width: info.width, height: info.height, channels: info.channels };
}
