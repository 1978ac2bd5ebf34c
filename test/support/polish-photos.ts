import sharp from 'sharp';
import { gaussian, random, type RawFixture } from './image-fixtures';

/**
 * Clean product photos for measuring `polish`, drawn without any noise (SVG rasterised by sharp,
 * or pixel formulas), each with the edges whose contrast must survive and, where it has one, the
 * area of fine texture. Edges lie on pixel boundaries, so the clean step is exactly the colours
 * drawn on either side.
 */

/** A straight edge on a pixel boundary: `at` is the first column (or row) of the far side. */
export interface KnownEdge {
  name: string;
  axis: 'vertical' | 'horizontal';
  at: number;
  /** The rows (or columns) along the edge that are measured, `from` included, `to` excluded. */
  from: number;
  to: number;
}

export interface Area {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface CleanPhoto {
  name: string;
  image: RawFixture;
  edges: KnownEdge[];
  /** Where the photo has fine texture (a weave), or null. */
  texture: Area | null;
}

export const PHOTO_WIDTH = 480;
export const PHOTO_HEIGHT = 360;

async function rendered(svg: string): Promise<RawFixture> {
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

const svgOf = (body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${PHOTO_WIDTH}" height="${PHOTO_HEIGHT}" ` +
  `shape-rendering="crispEdges">${body}</svg>`;

/**
 * A shaded carton on a lit backdrop: its front shaded from dark to light, a lighter lid, and a
 * white label with a brand name and small print, the hard case for a denoiser that blurs.
 */
async function labelledCarton(): Promise<CleanPhoto> {
  const svg = svgOf(
    `<defs>` +
      `<linearGradient id="wall" x1="0" y1="0" x2="0" y2="1">` +
      `<stop offset="0" stop-color="rgb(236,234,228)"/><stop offset="1" stop-color="rgb(196,194,190)"/>` +
      `</linearGradient>` +
      `<linearGradient id="front" x1="0" y1="0" x2="1" y2="0">` +
      `<stop offset="0" stop-color="rgb(112,46,38)"/><stop offset="1" stop-color="rgb(186,84,62)"/>` +
      `</linearGradient>` +
      `</defs>` +
      `<rect width="480" height="360" fill="url(#wall)"/>` +
      `<rect x="150" y="110" width="180" height="210" fill="url(#front)"/>` +
      `<rect x="150" y="80" width="180" height="30" fill="rgb(214,120,92)"/>` +
      `<rect x="180" y="170" width="120" height="80" fill="rgb(244,240,232)"/>` +
      `<text x="240" y="205" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" ` +
      `font-size="22" fill="rgb(40,40,48)" shape-rendering="auto">ORGANIC</text>` +
      `<text x="240" y="232" text-anchor="middle" font-family="DejaVu Sans" font-size="12" ` +
      `fill="rgb(60,60,70)" shape-rendering="auto">whole bean · 250 g</text>`,
  );
  return {
    name: 'labelled carton',
    image: await rendered(svg),
    edges: [
      { name: 'carton left', axis: 'vertical', at: 150, from: 120, to: 310 },
      { name: 'carton right', axis: 'vertical', at: 330, from: 120, to: 310 },
      { name: 'lid top', axis: 'horizontal', at: 80, from: 160, to: 320 },
      { name: 'label left', axis: 'vertical', at: 180, from: 176, to: 244 },
      { name: 'label bottom', axis: 'horizontal', at: 250, from: 186, to: 294 },
    ],
    texture: null,
  };
}

/**
 * A bottle on a wide radial backdrop, the case where blocking shows most: everything is smooth
 * shading (the backdrop's falloff, the bottle's cylinder, a soft shadow) except its outline.
 */
async function bottleOnGradient(): Promise<CleanPhoto> {
  const svg = svgOf(
    `<defs>` +
      `<radialGradient id="backdrop" cx="0.45" cy="0.4" r="0.75">` +
      `<stop offset="0" stop-color="rgb(250,238,214)"/><stop offset="1" stop-color="rgb(150,158,172)"/>` +
      `</radialGradient>` +
      `<linearGradient id="glass" x1="0" y1="0" x2="1" y2="0">` +
      `<stop offset="0" stop-color="rgb(24,70,52)"/><stop offset="0.35" stop-color="rgb(70,150,112)"/>` +
      `<stop offset="0.5" stop-color="rgb(96,176,136)"/><stop offset="1" stop-color="rgb(18,56,42)"/>` +
      `</linearGradient>` +
      `<filter id="soft"><feGaussianBlur stdDeviation="12"/></filter>` +
      `</defs>` +
      `<rect width="480" height="360" fill="url(#backdrop)"/>` +
      `<ellipse cx="250" cy="322" rx="80" ry="14" fill="rgb(60,60,70)" fill-opacity="0.45" filter="url(#soft)"/>` +
      `<rect x="200" y="120" width="80" height="200" fill="url(#glass)"/>` +
      `<rect x="224" y="60" width="32" height="60" fill="url(#glass)"/>`,
  );
  return {
    name: 'bottle on gradient',
    image: await rendered(svg),
    edges: [
      { name: 'bottle left', axis: 'vertical', at: 200, from: 130, to: 310 },
      { name: 'bottle right', axis: 'vertical', at: 280, from: 130, to: 310 },
      { name: 'shoulder', axis: 'horizontal', at: 120, from: 204, to: 220 },
      { name: 'neck left', axis: 'vertical', at: 224, from: 66, to: 114 },
    ],
    texture: null,
  };
}

/**
 * A woven cushion: a weave with a period of 6 pixels and 40 levels from dark thread to light,
 * under a soft light, on a backdrop of smooth shading. Fine texture of the size of noise grains
 * is where a denoiser loses detail first.
 */
function wovenCushion(): CleanPhoto {
  const left = 110;
  const top = 90;
  const right = 370;
  const bottom = 290;
  const data = Buffer.alloc(PHOTO_WIDTH * PHOTO_HEIGHT * 3);
  for (let y = 0; y < PHOTO_HEIGHT; y++) {
    for (let x = 0; x < PHOTO_WIDTH; x++) {
      const i = (y * PHOTO_WIDTH + x) * 3;
      let rgb: [number, number, number];
      if (x >= left && x < right && y >= top && y < bottom) {
        const light = 0.8 + 0.2 * Math.cos(((x - 240) / 260) * Math.PI) * Math.cos(((y - 190) / 400) * Math.PI);
        // Warp and weft alternate every 3 px, each thread brighter at its middle.
        const warp = Math.floor(x / 3) % 2 === Math.floor(y / 3) % 2;
        const across = warp ? (x % 3) / 2 : (y % 3) / 2;
        const thread = 20 * Math.sin(across * Math.PI) - 20 * (1 - Math.sin(across * Math.PI));
        rgb = [(60 + thread) * light, (132 + thread) * light, (140 + thread) * light];
      } else {
        const fall = 1 - 0.2 * Math.hypot((x - 240) / 480, (y - 120) / 360);
        rgb = [228 * fall, 222 * fall, 212 * fall];
      }
      data[i] = Math.round(rgb[0]);
      data[i + 1] = Math.round(rgb[1]);
      data[i + 2] = Math.round(rgb[2]);
    }
  }
  return {
    name: 'woven cushion',
    image: { data, width: PHOTO_WIDTH, height: PHOTO_HEIGHT, channels: 3 },
    edges: [
      { name: 'cushion left', axis: 'vertical', at: left, from: top + 10, to: bottom - 10 },
      { name: 'cushion top', axis: 'horizontal', at: top, from: left + 10, to: right - 10 },
    ],
    texture: { left: left + 4, top: top + 4, width: right - left - 8, height: bottom - top - 8 },
  };
}

/** The clean photos, in a fixed order. */
export async function cleanPhotos(): Promise<CleanPhoto[]> {
  return [await labelledCarton(), await bottleOnGradient(), wovenCushion()];
}

/** `image` plus Gaussian noise of `sigma` levels on each channel, independently, from a seeded generator. */
export function withGaussianNoise(image: RawFixture, sigma: number, seed: number): RawFixture {
  const next = gaussian(random(seed));
  const data = Buffer.alloc(image.data.length);
  for (let i = 0; i < data.length; i++)
    data[i] = Math.max(0, Math.min(255, Math.round(image.data[i] + sigma * next())));
  return { ...image, data };
}

/** `image` as a JPEG of `quality` (libjpeg's defaults otherwise: 4:2:0 chroma), the way a seller's upload looks. */
export function asJpeg(image: RawFixture, quality: number): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
    .jpeg({ quality })
    .toBuffer();
}
