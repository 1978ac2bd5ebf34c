import type { Size } from '../raw-image';
import type { CutoutLayers, Frame } from './cutout-layers';

/** Lanczos with three lobes, the kernel libvips resizes with elsewhere in the service. */
const LOBES = 3;

function lanczos(x: number): number {
  if (x === 0) return 1;
  if (x <= -LOBES || x >= LOBES) return 0;
  const px = Math.PI * x;
  return (LOBES * Math.sin(px) * Math.sin(px / LOBES)) / (px * px);
}

/**
 * For each output pixel along one axis: the first source pixel it reads, and its weights (`count`
 * of them from `offset` in `weights`); when enlarging, also the source pixel just before its
 * centre (the one after is the next), whose values bound it.
 */
interface Taps {
  first: Int32Array;
  count: Int32Array;
  offset: Int32Array;
  weights: Float32Array;
  /** Null when shrinking, where the kernel is wide enough that its overshoot stays small. */
  before: Int32Array | null;
}

/**
 * The taps of an axis whose output pixel `i` (spanning [i, i+1)) covers source [origin + i/scale,
 * origin + (i+1)/scale): each output centre reads the source around the point it maps to, with the
 * kernel stretched by 1/scale when shrinking so nothing aliases. Source pixels past either end are
 * empty (zero), so the weights are normalised over the whole kernel, not only over what lies inside.
 */
function tapsOf(outLength: number, sourceLength: number, origin: number, scale: number): Taps {
  const stretch = Math.max(1, 1 / scale);
  const reach = LOBES * stretch;
  const first = new Int32Array(outLength);
  const count = new Int32Array(outLength);
  const offset = new Int32Array(outLength);
  const kept: number[] = [];
  const before = scale > 1 ? new Int32Array(outLength) : null;
  for (let i = 0; i < outLength; i++) {
    const centre = origin + (i + 0.5) / scale;
    if (before) before[i] = Math.floor(centre - 0.5);
    const from = Math.floor(centre - reach);
    const to = Math.ceil(centre + reach);
    let total = 0;
    for (let s = from; s <= to; s++) total += lanczos((s + 0.5 - centre) / stretch);
    const start = Math.max(0, from);
    const end = Math.min(sourceLength - 1, to);
    first[i] = start;
    offset[i] = kept.length;
    count[i] = Math.max(0, end - start + 1);
    for (let s = start; s <= end; s++) kept.push(lanczos((s + 0.5 - centre) / stretch) / total);
  }
  return { first, count, offset, weights: Float32Array.from(kept), before };
}

/** A line of planes per pixel, and the span of pixels that are not all zero (`to` < `from` when none is). */
interface Line {
  data: Float32Array;
  from: number;
  to: number;
}

/**
 * The layers' content inside a frame given in fractions of a pixel, resampled to `size` so that
 * the frame's edges land exactly on the result's: a point at source x lands at
 * (x - frame.left) x size.width / frame.width. libvips resizes whole-pixel regions only (and
 * places enlarged content up to half an output pixel off), so a placement that must be right to
 * the pixel is resampled here: separable Lanczos-3 on premultiplied colour, alpha and shadow, one
 * source row at a time, kept only while output rows read it. Where an axis is enlarged each value
 * is held between the two source values around it, so the kernel's overshoot beside an edge never
 * makes a pixel outside the product's box opaque (along one axis times an edge along the other).
 */
export function resampleExactly(layers: CutoutLayers, frame: Frame, size: Size): CutoutLayers {
  // A large reduction first averages whole blocks (as libvips shrinks before it reduces), which maps
  // coordinates exactly (x / k), so the kernel below never needs more than a few taps a side.
  const byX = Math.max(1, Math.floor(frame.width / size.width / 2));
  const byY = Math.max(1, Math.floor(frame.height / size.height / 2));
  if (byX > 1 || byY > 1) {
    const shrunk = blockAverage(layers, byX, byY);
    return resampleExactly(
      shrunk,
      { left: frame.left / byX, top: frame.top / byY, width: frame.width / byX, height: frame.height / byY },
      size,
    );
  }
  const { width, height } = layers.colour;
  const planes = layers.shadow ? 5 : 4;
  const across = tapsOf(size.width, width, frame.left, size.width / frame.width);
  const down = tapsOf(size.height, height, frame.top, size.height / frame.height);
  const blank: Line = { data: new Float32Array(size.width * planes), from: 0, to: -1 };

  const rows = new Map<number, Line>();
  const rowOf = (y: number): Line => {
    if (y < 0 || y >= height) return blank;
    const cached = rows.get(y);
    if (cached) return cached;
    const source = sourceRow(layers, planes, y);
    const row = source.to < source.from ? blank : resampleLine(source, across, planes, size.width);
    rows.set(y, row);
    return row;
  };

  const pixels = size.width * size.height;
  const colour = Buffer.alloc(pixels * 3);
  const alpha = new Uint8Array(pixels);
  const shadow = layers.shadow ? new Uint8Array(pixels) : null;
  const sums = new Float32Array(size.width * planes);
  for (let y = 0; y < size.height; y++) {
    const first = down.first[y];
    // Rows above this output row's first tap (and its bounding pair) are never read again.
    const lowest = Math.min(first, down.before ? down.before[y] : first);
    for (const kept of rows.keys()) if (kept < lowest) rows.delete(kept);
    let from = size.width;
    let to = -1;
    const read: Array<[Line, number]> = [];
    for (let k = 0; k < down.count[y]; k++) {
      const row = rowOf(first + k);
      if (row.to < row.from) continue;
      read.push([row, down.weights[down.offset[y] + k]]);
      from = Math.min(from, row.from);
      to = Math.max(to, row.to);
    }
    if (to < from) continue;
    sums.fill(0, from * planes, (to + 1) * planes);
    for (const [row, weight] of read) {
      for (let i = from * planes; i < (to + 1) * planes; i++) sums[i] += weight * row.data[i];
    }
    if (down.before) bound(sums, rowOf(down.before[y]).data, rowOf(down.before[y] + 1).data, from, to, planes);
    for (let x = from; x <= to; x++) {
      const at = x * planes;
      const out = y * size.width + x;
      const a = clamp(sums[at + 3]);
      alpha[out] = Math.round(a);
      if (a > 0) {
        // Back from premultiplied colour: the sums carry the alpha on a 0..255 scale.
        for (let c = 0; c < 3; c++) colour[out * 3 + c] = Math.round(clamp((sums[at + c] * 255) / a));
      }
      if (shadow) shadow[out] = Math.round(clamp(sums[at + 4]));
    }
  }
  const { width: outWidth, height: outHeight } = size;
  return {
    colour: { data: colour, width: outWidth, height: outHeight, channels: 3 },
    alpha: { data: alpha, width: outWidth, height: outHeight },
    shadow: shadow && { data: shadow, width: outWidth, height: outHeight },
  };
}

/**
 * Each `byX` x `byY` block of the layers averaged into one pixel (colour weighted by alpha); a
 * block reaching past the layers' edge counts what lies past it as empty.
 */
function blockAverage(layers: CutoutLayers, byX: number, byY: number): CutoutLayers {
  const { width, height, data: colour, channels } = layers.colour;
  const alpha = layers.alpha.data;
  const shadow = layers.shadow?.data;
  const outWidth = Math.ceil(width / byX);
  const outHeight = Math.ceil(height / byY);
  const area = byX * byY;
  const out = {
    colour: Buffer.alloc(outWidth * outHeight * 3),
    alpha: new Uint8Array(outWidth * outHeight),
    shadow: shadow ? new Uint8Array(outWidth * outHeight) : null,
  };
  const sums = new Float64Array(outWidth * 5);
  for (let oy = 0; oy < outHeight; oy++) {
    sums.fill(0);
    for (let y = oy * byY; y < Math.min(height, (oy + 1) * byY); y++) {
      for (let x = 0, i = y * width; x < width; x++, i++) {
        const at = Math.floor(x / byX) * 5;
        const opacity = alpha[i];
        if (opacity > 0) {
          sums[at] += colour[i * channels] * opacity;
          sums[at + 1] += colour[i * channels + 1] * opacity;
          sums[at + 2] += colour[i * channels + 2] * opacity;
          sums[at + 3] += opacity;
        }
        if (shadow) sums[at + 4] += shadow[i];
      }
    }
    for (let ox = 0; ox < outWidth; ox++) {
      const at = ox * 5;
      const o = oy * outWidth + ox;
      out.alpha[o] = Math.round(sums[at + 3] / area);
      if (sums[at + 3] > 0) for (let c = 0; c < 3; c++) out.colour[o * 3 + c] = Math.round(sums[at + c] / sums[at + 3]);
      if (out.shadow) out.shadow[o] = Math.round(sums[at + 4] / area);
    }
  }
  return {
    colour: { data: out.colour, width: outWidth, height: outHeight, channels: 3 },
    alpha: { data: out.alpha, width: outWidth, height: outHeight },
    shadow: out.shadow && { data: out.shadow, width: outWidth, height: outHeight },
  };
}

/** A source row as planes per pixel: colour premultiplied by alpha, alpha, and the shadow when there is one. */
function sourceRow(layers: CutoutLayers, planes: number, y: number): Line {
  const { width, data: colour, channels } = layers.colour;
  const alpha = layers.alpha.data;
  const shadow = layers.shadow?.data;
  const data = new Float32Array(width * planes);
  let from = width;
  let to = -1;
  for (let x = 0, i = y * width; x < width; x++, i++) {
    const opacity = alpha[i];
    const shade = shadow ? shadow[i] : 0;
    if (opacity === 0 && shade === 0) continue;
    if (x < from) from = x;
    to = x;
    const at = x * planes;
    for (let c = 0; c < 3; c++) data[at + c] = (colour[i * channels + c] * opacity) / 255;
    data[at + 3] = opacity;
    if (shadow) data[at + 4] = shade;
  }
  return { data, from, to };
}

/** One row resampled across: only the output pixels whose taps reach the row's non-zero span are computed. */
function resampleLine(line: Line, taps: Taps, planes: number, outLength: number): Line {
  const data = new Float32Array(outLength * planes);
  const length = line.data.length / planes;
  const source = line.data;
  const sum = new Float64Array(planes);
  let from = outLength;
  let to = -1;
  for (let x = 0; x < outLength; x++) {
    const start = taps.first[x];
    const count = taps.count[x];
    if (count === 0 || start > line.to || start + count - 1 < line.from) continue;
    if (x < from) from = x;
    to = x;
    // The planes in locals: this loop is most of a placement's time.
    let r = 0;
    let g = 0;
    let b = 0;
    let a = 0;
    let s = 0;
    for (let k = 0, at = start * planes, w = taps.offset[x]; k < count; k++, w++, at += planes) {
      const weight = taps.weights[w];
      r += weight * source[at];
      g += weight * source[at + 1];
      b += weight * source[at + 2];
      a += weight * source[at + 3];
      if (planes === 5) s += weight * source[at + 4];
    }
    sum[0] = r;
    sum[1] = g;
    sum[2] = b;
    sum[3] = a;
    if (planes === 5) sum[4] = s;
    const before = taps.before ? taps.before[x] : -1;
    for (let p = 0; p < planes; p++) {
      let value = sum[p];
      if (taps.before) {
        const a = before < 0 || before >= length ? 0 : line.data[before * planes + p];
        const b = before + 1 < 0 || before + 1 >= length ? 0 : line.data[(before + 1) * planes + p];
        value = Math.min(Math.max(value, Math.min(a, b)), Math.max(a, b));
      }
      data[x * planes + p] = value;
    }
  }
  return { data, from, to };
}

/** Each value from `from` to `to` held between the values of the two rows around it. */
function bound(
  values: Float32Array,
  before: Float32Array,
  after: Float32Array,
  from: number,
  to: number,
  planes: number,
) {
  for (let i = from * planes; i < (to + 1) * planes; i++) {
    const low = Math.min(before[i], after[i]);
    const high = Math.max(before[i], after[i]);
    values[i] = Math.min(Math.max(values[i], low), high);
  }
}

const clamp = (value: number) => (value < 0 ? 0 : value > 255 ? 255 : value);
