import sharp from 'sharp';
import type { AlphaMask } from '../mask/alpha-mask';
import { subjectBounds } from '../mask/alpha-mask';

export type ShadowKind = 'none' | 'soft' | 'natural';

/**
 * How a result's shadow is drawn. Variants of one source change the light, never the subject:
 * `spread` widens or narrows the shadow, `lean` moves where a natural shadow falls.
 */
export interface ShadowStyle {
  kind: ShadowKind;
  /** Multiplies the blur and length of the shadow (1: as designed). */
  spread: number;
  /** Horizontal run of a natural shadow per unit of height; positive falls to the right. */
  lean: number;
}

/** Darkness of each shadow at its core, 0..1. */
const CONTACT_OPACITY = 0.55;
const CAST_OPACITY = 0.32;
/** Share of the subject's height kept as the footprint a contact shadow is drawn from. */
const FOOTPRINT_SHARE = 0.12;
/** How much a contact shadow's footprint is flattened onto the floor. */
const CONTACT_FLATTEN = 0.35;
/** How much a natural shadow is flattened: light from high up and behind the camera. */
const CAST_FLATTEN = 0.28;

/**
 * The subject's shadow as an opacity mask (0 none .. 255 black) the size of `alpha`, drawn from
 * the mask itself so it has the subject's footprint: `soft` is a blurred contact shadow made of
 * the subject's lowest rows pressed flat under it; `natural` adds the whole silhouette cast
 * back onto the floor, flattened and leaning away from the light, its blur growing with the
 * distance. It is composited beneath the subject, so it never darkens the subject itself.
 * Null when there is no subject or no shadow.
 */
export async function drawShadow(alpha: AlphaMask, style: ShadowStyle): Promise<AlphaMask | null> {
  if (style.kind === 'none') return null;
  const bounds = subjectBounds(alpha);
  if (!bounds) return null;
  const size = Math.max(bounds.width, bounds.height);
  const base = bounds.top + bounds.height - 1;
  // The footprint pressed flat is centred on the base line, so half of it shows below the subject.
  const footprint = Math.ceil(bounds.height * FOOTPRINT_SHARE);
  const contactFloor = Math.min(alpha.height - 1, base + Math.round((footprint * CONTACT_FLATTEN) / 2));
  const contact = await blurred(
    projected(alpha, bounds, contactFloor, {
      from: base - footprint,
      flatten: CONTACT_FLATTEN,
      lean: 0,
      lift: contactFloor - base,
    }),
    Math.max(1.5, size * 0.015 * style.spread),
  );
  if (style.kind === 'soft') return scaled(contact, CONTACT_OPACITY);
  const cast = await blurred(
    projected(alpha, bounds, base, {
      from: bounds.top,
      flatten: CAST_FLATTEN * style.spread,
      lean: style.lean,
      lift: 0,
    }),
    Math.max(2, size * 0.025 * style.spread),
  );
  return combined(scaled(contact, CONTACT_OPACITY), scaled(cast, CAST_OPACITY));
}

interface Projection {
  /** The highest row of the subject that casts shadow. */
  from: number;
  flatten: number;
  lean: number;
  /** Rows the floor lies below the subject's base (where the shadow is drawn lower than the subject stands). */
  lift: number;
}

/**
 * Every subject pixel from row `from` down to its base pressed onto the floor at row `floor`
 * (the base plus `lift`): a pixel `d` rows above the base lands `d * flatten` rows above the
 * floor and `d * flatten * lean` to the side. Drawn by inverse mapping, so it has no gaps.
 */
function projected(
  alpha: AlphaMask,
  bounds: { left: number; width: number },
  floor: number,
  projection: Projection,
): AlphaMask {
  const { width, height } = alpha;
  const out = new Uint8Array(width * height);
  const base = floor - projection.lift;
  const rise = base - Math.max(0, projection.from);
  const rows = Math.ceil(rise * projection.flatten);
  const reach = Math.ceil(rise * projection.flatten * Math.abs(projection.lean));
  const left = Math.max(0, bounds.left - reach);
  const right = Math.min(width - 1, bounds.left + bounds.width - 1 + reach);
  for (let dy = 0; dy <= rows; dy++) {
    const y = floor - dy;
    if (y < 0) break;
    const distance = dy / Math.max(projection.flatten, 1e-6);
    const sourceY = Math.round(base - distance);
    if (sourceY < projection.from) break;
    const shift = Math.round(dy * projection.lean);
    for (let x = left; x <= right; x++) {
      const sourceX = x - shift;
      if (sourceX < 0 || sourceX >= width) continue;
      out[y * width + x] = alpha.data[sourceY * width + sourceX];
    }
  }
  return { data: out, width, height };
}

/** A Gaussian blur in libvips (one channel, O(N) per pass). */
async function blurred(mask: AlphaMask, sigma: number): Promise<AlphaMask> {
  const data = await sharp(mask.data, { raw: { width: mask.width, height: mask.height, channels: 1 } })
    .blur(sigma)
    // libvips would otherwise write one-channel raw pixels back out as sRGB.
    .toColourspace('b-w')
    .raw({ depth: 'uchar' })
    .toBuffer();
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: mask.width, height: mask.height };
}

function scaled(mask: AlphaMask, opacity: number): AlphaMask {
  const data = new Uint8Array(mask.data.length);
  for (let i = 0; i < data.length; i++) data[i] = Math.round(mask.data[i] * opacity);
  return { data, width: mask.width, height: mask.height };
}

/** Two shadows over each other: each lets through what the other leaves (1 - (1 - a)(1 - b)). */
function combined(a: AlphaMask, b: AlphaMask): AlphaMask {
  const data = new Uint8Array(a.data.length);
  for (let i = 0; i < data.length; i++) data[i] = 255 - Math.round(((255 - a.data[i]) * (255 - b.data[i])) / 255);
  return { data, width: a.width, height: a.height };
}
