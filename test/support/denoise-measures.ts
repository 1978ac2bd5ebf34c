import type { Area, KnownEdge } from './polish-photos';

/**
 * What `polish` is judged by, measured on luma (Rec. 709 weights on the 8-bit sRGB values, as
 * the eye weighs noise) against the clean photo the noisy one was made from. Every image here is
 * decoded 8-bit pixels, RGB or RGBA, the same size as the clean photo.
 */

export interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

/** Luma steps between neighbours above this, in the clean photo, are edges or texture, not shading. */
export const SHADING_STEP = 4;
/** Pixels this close to an edge (or to the border) are left to the edge measure: a few px. */
export const EDGE_MARGIN = 3;
/** Pixels averaged on each side of an edge for its step: the EDGE_MARGIN px next to it. */
export const EDGE_BAND = EDGE_MARGIN;
/** The window whose mean is taken away to leave a pixel's detail: 5 x 5. */
const DETAIL_RADIUS = 2;

export function lumaOf(image: Pixels): Float32Array {
  const { data, width, height, channels } = image;
  const luma = new Float32Array(width * height);
  for (let i = 0, j = 0; i < luma.length; i++, j += channels) {
    luma[i] = 0.2126 * data[j] + 0.7152 * data[j + 1] + 0.0722 * data[j + 2];
  }
  return luma;
}

/**
 * The flat and smoothly shaded part of the clean photo, where noise is measured: pixels more than
 * EDGE_MARGIN px (in both directions) from any pair of neighbours whose luma differs by more than
 * SHADING_STEP, and from the border. A backdrop's falloff or a bottle's cylinder changes by less
 * than that per pixel; an outline, a letter or a thread does not.
 */
export function smoothRegion(clean: Pixels): Uint8Array {
  const { width, height } = clean;
  const luma = lumaOf(clean);
  const edge = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (x + 1 < width && Math.abs(luma[i + 1] - luma[i]) > SHADING_STEP) edge[i] = edge[i + 1] = 1;
      if (y + 1 < height && Math.abs(luma[i + width] - luma[i]) > SHADING_STEP) edge[i] = edge[i + width] = 1;
    }
  }
  const region = new Uint8Array(width * height);
  for (let y = EDGE_MARGIN; y < height - EDGE_MARGIN; y++) {
    for (let x = EDGE_MARGIN; x < width - EDGE_MARGIN; x++) region[y * width + x] = 1;
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!edge[y * width + x]) continue;
      for (let v = Math.max(0, y - EDGE_MARGIN); v <= Math.min(height - 1, y + EDGE_MARGIN); v++) {
        region.fill(0, v * width + Math.max(0, x - EDGE_MARGIN), v * width + Math.min(width, x + EDGE_MARGIN + 1));
      }
    }
  }
  return region;
}

/** Pixels of the region that are set. */
export const regionSize = (region: Uint8Array) => region.reduce((sum, inside) => sum + inside, 0);

/** Root mean square of the luma difference between `image` and `clean` over `region`: the noise left. */
export function noiseRms(image: Pixels, clean: Pixels, region: Uint8Array): number {
  const a = lumaOf(image);
  const b = lumaOf(clean);
  let sum = 0;
  let count = 0;
  for (let i = 0; i < region.length; i++) {
    if (!region[i]) continue;
    sum += (a[i] - b[i]) ** 2;
    count++;
  }
  return Math.sqrt(sum / count);
}

/**
 * The step across an edge: the mean luma of the EDGE_BAND px on its far side (from `at` on)
 * minus that of the EDGE_BAND px on its near side, along the measured stretch. A blur of even
 * 3 x 3 pixels takes a fifth of it away; noise averages out along the edge.
 */
export function edgeStep(image: Pixels, edge: KnownEdge): number {
  const luma = lumaOf(image);
  const at = (along: number, across: number) =>
    edge.axis === 'vertical' ? luma[along * image.width + across] : luma[across * image.width + along];
  let far = 0;
  let near = 0;
  for (let along = edge.from; along < edge.to; along++) {
    for (let k = 0; k < EDGE_BAND; k++) {
      far += at(along, edge.at + k);
      near += at(along, edge.at - 1 - k);
    }
  }
  return (far - near) / ((edge.to - edge.from) * EDGE_BAND);
}

/** Each edge's step in `image` as a share of its step in `clean` (1 = kept, above 1 = crisper). */
export function edgeContrastKept(image: Pixels, clean: Pixels, edges: KnownEdge[]): Map<string, number> {
  return new Map(edges.map((edge) => [edge.name, edgeStep(image, edge) / edgeStep(clean, edge)]));
}

/** Luma minus its mean over the (2 DETAIL_RADIUS + 1)² window: what a blur takes away. */
function detailOf(image: Pixels, area: Area): Float64Array {
  const luma = lumaOf(image);
  const detail = new Float64Array(area.width * area.height);
  const r = DETAIL_RADIUS;
  for (let y = 0; y < area.height; y++) {
    for (let x = 0; x < area.width; x++) {
      const cx = area.left + x;
      const cy = area.top + y;
      let sum = 0;
      for (let v = cy - r; v <= cy + r; v++) for (let u = cx - r; u <= cx + r; u++) sum += luma[v * image.width + u];
      detail[y * area.width + x] = luma[cy * image.width + cx] - sum / (2 * r + 1) ** 2;
    }
  }
  return detail;
}

/**
 * How much of the clean photo's fine detail over `area` is in `image`: the projection of the
 * image's detail on the clean detail, over the clean detail's energy. 1 = all kept, 0.5 = half
 * the contrast of the texture gone. Noise is independent of the texture, so it adds nothing on
 * average, whereas a difference of means over the same pixels would count it as detail.
 */
export function detailKept(image: Pixels, clean: Pixels, area: Area): number {
  const a = detailOf(image, area);
  const b = detailOf(clean, area);
  let dot = 0;
  let energy = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    energy += b[i] * b[i];
  }
  return dot / energy;
}
