import sharp from 'sharp';
import type { AlphaMask } from '../mask/alpha-mask';
import type { RawImage, Size } from '../raw-image';

/** A rectangle in a layer's pixels; it may reach past the layer's edges, where the layer is empty. */
export interface Frame {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * A cut-out ready to place: the subject's colours (RGB, decontaminated at soft edges), its
 * alpha, and its shadow's opacity (or none), all the same size.
 */
export interface CutoutLayers {
  colour: RawImage;
  alpha: AlphaMask;
  shadow: AlphaMask | null;
}

/**
 * The layers' content inside `frame`, resampled to `size`. Outside the source the subject and
 * its shadow are empty, so a frame larger than the photo pads it. The colour and alpha are
 * resampled together as RGBA, so libvips premultiplies and no background bleeds into edges.
 */
export async function reframe(layers: CutoutLayers, frame: Frame, size: Size): Promise<CutoutLayers> {
  const { width, height } = layers.colour;
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0, j = 0; i < width * height; i++, j += 4) {
    rgba[j] = layers.colour.data[i * 3];
    rgba[j + 1] = layers.colour.data[i * 3 + 1];
    rgba[j + 2] = layers.colour.data[i * 3 + 2];
    rgba[j + 3] = layers.alpha.data[i];
  }
  const subject = await resampled({ data: rgba, width, height, channels: 4 }, frame, size);
  const colour = Buffer.alloc(size.width * size.height * 3);
  const alpha = new Uint8Array(size.width * size.height);
  for (let i = 0, j = 0; i < alpha.length; i++, j += 4) {
    colour[i * 3] = subject[j];
    colour[i * 3 + 1] = subject[j + 1];
    colour[i * 3 + 2] = subject[j + 2];
    alpha[i] = subject[j + 3];
  }
  const shadow = layers.shadow
    ? new Uint8Array(
        await resampled(
          {
            data: Buffer.from(layers.shadow.data.buffer, layers.shadow.data.byteOffset, layers.shadow.data.length),
            width,
            height,
            channels: 1,
          },
          frame,
          size,
        ),
      )
    : null;
  return {
    colour: { data: colour, width: size.width, height: size.height, channels: 3 },
    alpha: { data: alpha, ...size },
    shadow: shadow && { data: shadow, ...size },
  };
}

interface Planes {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 4;
}

/**
 * `frame` of `planes` at `size`, zeros where the frame reaches past the planes. Only the part
 * of the frame that overlaps the planes is resampled and then placed, so a frame much larger
 * than the photo never costs a buffer of its own size.
 */
async function resampled(planes: Planes, frame: Frame, size: Size): Promise<Buffer> {
  const { channels } = planes;
  const out = Buffer.alloc(size.width * size.height * channels);
  const inside = {
    left: Math.max(0, frame.left),
    top: Math.max(0, frame.top),
    right: Math.min(planes.width, frame.left + frame.width),
    bottom: Math.min(planes.height, frame.top + frame.height),
  };
  if (inside.right <= inside.left || inside.bottom <= inside.top) return out;
  const scaleX = size.width / frame.width;
  const scaleY = size.height / frame.height;
  const target = {
    left: Math.round((inside.left - frame.left) * scaleX),
    top: Math.round((inside.top - frame.top) * scaleY),
    right: Math.round((inside.right - frame.left) * scaleX),
    bottom: Math.round((inside.bottom - frame.top) * scaleY),
  };
  const width = Math.max(1, target.right - target.left);
  const height = Math.max(1, target.bottom - target.top);
  const pipeline = sharp(planes.data, { raw: { width: planes.width, height: planes.height, channels } })
    .extract({
      left: inside.left,
      top: inside.top,
      width: inside.right - inside.left,
      height: inside.bottom - inside.top,
    })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' });
  // libvips would otherwise write one-channel raw pixels back out as sRGB.
  const piece = await (channels === 1 ? pipeline.toColourspace('b-w') : pipeline).raw({ depth: 'uchar' }).toBuffer();
  const rowBytes = Math.min(width, size.width - target.left) * channels;
  for (let row = 0; row < height && target.top + row < size.height; row++) {
    piece.copy(
      out,
      ((target.top + row) * size.width + target.left) * channels,
      row * width * channels,
      row * width * channels + rowBytes,
    );
  }
  return out;
}
