import sharp from 'sharp';
import { gaussian, random, type RawFixture, type Rgb } from './image-fixtures';
import { hex, linear, radial, svgDocument } from './product-shots/svg';

/**
 * Product photos for measuring exposure and colour corrections: each scene is drawn once, well
 * exposed under neutral (D65) light, with a product that has shading, a specular highlight and
 * printed text, over a backdrop gradient; some hold an 18 % grey card. The test then relights it in
 * linear light (a colour cast, under- or overexposure), as a camera would have recorded it, and
 * knows what the corrected photo should be.
 */

export interface Rectangle {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface ToneScene {
  name: string;
  /** The well-exposed photo, 8-bit sRGB. */
  photo: RawFixture;
  /** width x height, 255 inside the product. */
  product: Uint8Array;
  /** Inside the grey card (its edges left out), or null without one. */
  card: Rectangle | null;
}

/** An 18 % grey card: linear 0.18 in every channel is sRGB level 118. */
export const GREY_CARD: Rgb = [118, 118, 118];

interface SceneDrawing {
  name: string;
  width: number;
  height: number;
  backdrop: string;
  /** The product alone, over nothing. */
  product: string;
  card: Rectangle | null;
}

const text = (x: number, y: number, size: number, colour: Rgb, words: string, weight = 'bold') =>
  `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="${size}" font-weight="${weight}" ` +
  `fill="${hex(colour)}" text-anchor="middle">${words}</text>`;

/** A soft white streak: the light source reflected in a glossy surface. */
const specular = (x: number, y: number, rx: number, ry: number, opacity: number) =>
  `<ellipse cx="${x}" cy="${y}" rx="${rx}" ry="${ry}" fill="#ffffff" opacity="${opacity}" filter="url(#soft)"/>`;

const SOFT =
  '<filter id="soft" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="4"/></filter>';

const cardOf = (card: Rectangle | null) =>
  card
    ? `<rect x="${card.left - 4}" y="${card.top - 4}" width="${card.width + 8}" height="${card.height + 8}" ` +
      `fill="${hex(GREY_CARD)}"/>`
    : '';

/** An amber bottle with a cream label, on a white-to-grey studio sweep, a grey card to its left. */
function bottleOnSweep(withCard: boolean): SceneDrawing {
  const card = withCard ? { left: 70, top: 250, width: 120, height: 150 } : null;
  return {
    name: 'bottle-on-sweep',
    width: 640,
    height: 480,
    card,
    backdrop:
      linear(
        'sweep',
        [0, 0, 0, 1],
        [
          [0, [236, 236, 236]],
          [0.7, [214, 214, 214]],
          [1, [182, 182, 182]],
        ],
      ) +
      `<rect width="640" height="480" fill="url(#sweep)"/>` +
      `<ellipse cx="370" cy="452" rx="110" ry="14" fill="#000" opacity="0.35" filter="url(#soft)"/>` +
      cardOf(card),
    product:
      linear(
        'glass',
        [0, 0, 1, 0],
        [
          [0, [70, 34, 8]],
          [0.25, [196, 110, 34]],
          [0.45, [150, 76, 20]],
          [1, [52, 24, 6]],
        ],
      ) +
      `<rect x="340" y="40" width="60" height="60" rx="6" fill="#2a2a2e"/>` +
      `<path d="M345,100 L395,100 L395,150 C395,190 460,190 460,240 L460,440 Q460,455 445,455 ` +
      `L295,455 Q280,455 280,440 L280,240 C280,190 345,190 345,150 Z" fill="url(#glass)"/>` +
      `<rect x="285" y="280" width="170" height="120" fill="#efe6cf"/>` +
      text(370, 322, 26, [28, 24, 20], 'OLIVE OIL') +
      text(370, 352, 14, [60, 50, 40], 'EXTRA VIRGIN', 'normal') +
      text(370, 382, 13, [150, 30, 30], '750 ml', 'normal') +
      specular(305, 330, 7, 95, 0.85) +
      specular(318, 215, 5, 22, 0.7),
  };
}

/** A blue box with white print on a wooden table against a grey wall, a grey card leaning on the wall. */
function boxOnTable(withCard: boolean): SceneDrawing {
  const card = withCard ? { left: 470, top: 170, width: 110, height: 130 } : null;
  return {
    name: 'box-on-table',
    width: 640,
    height: 480,
    card,
    backdrop:
      linear(
        'wall',
        [0, 0, 1, 0.4],
        [
          [0, [168, 168, 170]],
          [1, [120, 120, 122]],
        ],
      ) +
      linear(
        'wood',
        [0, 0, 0, 1],
        [
          [0, [150, 98, 58]],
          [1, [104, 64, 36]],
        ],
      ) +
      `<rect width="640" height="320" fill="url(#wall)"/><rect y="320" width="640" height="160" fill="url(#wood)"/>` +
      Array.from(
        { length: 9 },
        (_, i) => `<rect y="${330 + i * 17}" width="640" height="3" fill="#3a2412" opacity="0.3"/>`,
      ).join('') +
      `<ellipse cx="250" cy="402" rx="170" ry="16" fill="#000" opacity="0.45" filter="url(#soft)"/>` +
      cardOf(card),
    product:
      `<polygon points="90,140 330,140 330,400 90,400" fill="#1d4f9c"/>` +
      `<polygon points="330,140 410,110 410,360 330,400" fill="#123266"/>` +
      `<polygon points="90,140 170,110 410,110 330,140" fill="#3d74c6"/>` +
      text(210, 230, 34, [250, 250, 250], 'FRAGILE') +
      text(210, 268, 16, [235, 235, 235], 'THIS SIDE UP', 'normal') +
      `<rect x="120" y="300" width="180" height="46" fill="#f4f4f4"/>` +
      Array.from(
        { length: 22 },
        (_, i) => `<rect x="${128 + i * 7.5}" y="306" width="${i % 3 === 0 ? 4 : 2}" height="34" fill="#111"/>`,
      ).join('') +
      specular(150, 124, 60, 5, 0.55),
  };
}

/** A green can with a silver lid, on a grey gradient that darkens to the right, a grey card in front. */
function canOnGrey(withCard: boolean): SceneDrawing {
  const card = withCard ? { left: 420, top: 300, width: 140, height: 110 } : null;
  return {
    name: 'can-on-grey',
    width: 640,
    height: 480,
    card,
    backdrop:
      linear(
        'grey',
        [0, 0, 1, 1],
        [
          [0, [200, 200, 200]],
          [1, [84, 84, 84]],
        ],
      ) +
      `<rect width="640" height="480" fill="url(#grey)"/>` +
      `<ellipse cx="250" cy="440" rx="120" ry="12" fill="#000" opacity="0.4" filter="url(#soft)"/>` +
      cardOf(card),
    product:
      linear(
        'can',
        [0, 0, 1, 0],
        [
          [0, [20, 70, 30]],
          [0.3, [80, 190, 90]],
          [0.55, [40, 130, 60]],
          [1, [12, 50, 20]],
        ],
      ) +
      linear(
        'lid',
        [0, 0, 1, 0],
        [
          [0, [110, 110, 115]],
          [0.3, [235, 235, 240]],
          [1, [90, 90, 95]],
        ],
      ) +
      `<rect x="150" y="90" width="200" height="350" rx="14" fill="url(#can)"/>` +
      `<ellipse cx="250" cy="92" rx="100" ry="18" fill="url(#lid)"/>` +
      text(250, 250, 40, [250, 226, 60], 'LIME') +
      text(250, 290, 18, [255, 255, 255], 'sparkling water', 'normal') +
      specular(205, 260, 9, 140, 0.8),
  };
}

/** A red cushion filling most of the frame, white stitching and print, on a light grey backdrop. */
function redCushion(withCard: boolean): SceneDrawing {
  const card = withCard ? { left: 520, top: 330, width: 90, height: 110 } : null;
  return {
    name: 'red-cushion',
    width: 640,
    height: 480,
    card,
    backdrop:
      linear(
        'paper',
        [0, 0, 0, 1],
        [
          [0, [222, 222, 222]],
          [1, [176, 176, 176]],
        ],
      ) +
      `<rect width="640" height="480" fill="url(#paper)"/>` +
      cardOf(card),
    product:
      radial(
        'cushion',
        [0.4, 0.35, 0.75],
        [
          [0, [236, 52, 48]],
          [0.6, [196, 24, 30]],
          [1, [112, 8, 14]],
        ],
      ) +
      `<path d="M60,70 Q260,30 470,70 Q510,240 470,420 Q260,460 60,420 Q20,240 60,70 Z" fill="url(#cushion)"/>` +
      `<path d="M85,95 Q260,60 445,95 Q480,240 445,395 Q260,430 85,395 Q50,240 85,95 Z" fill="none" ` +
      `stroke="#f6e8e8" stroke-width="3" stroke-dasharray="10 7"/>` +
      text(265, 250, 44, [252, 246, 246], 'COZY') +
      specular(200, 140, 70, 18, 0.55),
  };
}

/** A red ball filling half the frame on a crimson-to-pink backdrop: nothing in the photo is grey. */
function redBallOnPink(): SceneDrawing {
  return {
    name: 'red-ball-on-pink',
    width: 640,
    height: 480,
    card: null,
    backdrop:
      linear(
        'pink',
        [0, 0, 1, 1],
        [
          [0, [226, 150, 170]],
          [1, [150, 40, 70]],
        ],
      ) +
      `<rect width="640" height="480" fill="url(#pink)"/>` +
      `<ellipse cx="320" cy="440" rx="160" ry="16" fill="#000" opacity="0.4" filter="url(#soft)"/>`,
    product:
      radial(
        'ball',
        [0.38, 0.32, 0.7],
        [
          [0, [250, 70, 60]],
          [0.55, [205, 20, 24]],
          [1, [90, 4, 8]],
        ],
      ) +
      `<circle cx="320" cy="240" r="200" fill="url(#ball)"/>` +
      `<path d="M130,210 Q320,300 510,210" fill="none" stroke="#fff4e0" stroke-width="10"/>` +
      text(320, 350, 36, [255, 240, 220], 'SPORT') +
      specular(250, 150, 40, 24, 0.8),
  };
}

/** The amber bottle on a pure white background (255), with its contact shadow: a studio packshot. */
function bottleOnWhite(): SceneDrawing {
  const bottle = bottleOnSweep(false);
  return {
    ...bottle,
    name: 'bottle-on-white',
    backdrop:
      `<rect width="640" height="480" fill="#ffffff"/>` +
      `<ellipse cx="370" cy="452" rx="110" ry="14" fill="#000" opacity="0.3" filter="url(#soft)"/>`,
  };
}

/** A white mug with a dark logo and a grey rim shadow on a pure white background: white on white. */
function whiteMugOnWhite(): SceneDrawing {
  return {
    name: 'white-mug-on-white',
    width: 640,
    height: 480,
    card: null,
    backdrop:
      `<rect width="640" height="480" fill="#ffffff"/>` +
      `<ellipse cx="300" cy="425" rx="150" ry="14" fill="#000" opacity="0.3" filter="url(#soft)"/>`,
    product:
      linear(
        'porcelain',
        [0, 0, 1, 0],
        [
          [0, [168, 168, 166]],
          [0.3, [246, 246, 244]],
          [0.6, [226, 226, 224]],
          [1, [150, 150, 148]],
        ],
      ) +
      `<path d="M420,190 C500,190 500,330 420,330" fill="none" stroke="#dcdcda" stroke-width="26"/>` +
      `<rect x="160" y="110" width="280" height="315" rx="16" fill="url(#porcelain)"/>` +
      `<ellipse cx="300" cy="112" rx="140" ry="22" fill="#8e8e8c"/>` +
      text(300, 270, 44, [30, 30, 34], 'CAFÉ') +
      text(300, 305, 16, [90, 90, 96], 'since 1921', 'normal') +
      specular(215, 250, 8, 120, 0.9),
  };
}

const DRAWINGS = {
  'bottle-on-sweep': bottleOnSweep,
  'box-on-table': boxOnTable,
  'can-on-grey': canOnGrey,
  'red-cushion': redCushion,
  'red-ball-on-pink': redBallOnPink,
  'bottle-on-white': bottleOnWhite,
  'white-mug-on-white': whiteMugOnWhite,
} as const;

export type SceneName = keyof typeof DRAWINGS;

/** A scene, the same pixels on every run: the drawing with sensor noise (about 2 levels). */
export async function toneScene(name: SceneName, options: { card?: boolean; seed?: number } = {}): Promise<ToneScene> {
  const drawing = DRAWINGS[name](options.card ?? false);
  const { width, height } = drawing;
  const render = (body: string) =>
    sharp(Buffer.from(svgDocument(width, height, `<defs>${SOFT}</defs>${body}`)))
      .ensureAlpha()
      .raw()
      .toBuffer();
  const [backdrop, product] = await Promise.all([render(drawing.backdrop), render(drawing.product)]);
  const noise = gaussian(random(options.seed ?? 7));
  const data = Buffer.alloc(width * height * 3);
  const mask = new Uint8Array(width * height);
  for (let p = 0; p < width * height; p++) {
    const alpha = product[p * 4 + 3] / 255;
    mask[p] = alpha >= 0.5 ? 255 : 0;
    // A clipped white was above the sensor's ceiling, noise and all: it stays 255.
    if (alpha === 0 && backdrop[p * 4] === 255 && backdrop[p * 4 + 1] === 255 && backdrop[p * 4 + 2] === 255) {
      data.fill(255, p * 3, p * 3 + 3);
      continue;
    }
    const grain = 2 * noise();
    for (let c = 0; c < 3; c++) {
      const value = backdrop[p * 4 + c] + (product[p * 4 + c] - backdrop[p * 4 + c]) * alpha + grain + 0.8 * noise();
      data[p * 3 + c] = Math.max(0, Math.min(255, Math.round(value)));
    }
  }
  return { name: drawing.name, photo: { data, width, height, channels: 3 }, product: mask, card: drawing.card };
}

const toLinear = (level: number) => {
  const c = level / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const toLevel = (linear: number) => {
  const c = Math.min(1, Math.max(0, linear));
  return Math.round(255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055));
};

/** The photo with each channel's level passed through `change` (which sees the level and the channel). */
export function changed(photo: RawFixture, change: (level: number, channel: number) => number): RawFixture {
  const tables = [0, 1, 2].map((channel) =>
    Uint8Array.from({ length: 256 }, (_, level) => Math.max(0, Math.min(255, Math.round(change(level, channel))))),
  );
  const data = Buffer.alloc(photo.data.length);
  for (let i = 0; i < data.length; i++) data[i] = tables[i % 3][photo.data[i]];
  return { ...photo, data };
}

/**
 * Linear gains (R, G, B) of a light relative to D65, as a camera balanced for daylight records it:
 * the light's white converted to linear sRGB (XYZ of its CIE xy), scaled so the strongest channel
 * is 1 (the camera exposes so that none clips).
 */
export const CASTS = {
  /** CIE illuminant A (tungsten, 2856 K), xy 0.44757, 0.40745. */
  tungsten: [1, 0.4477, 0.1264],
  /** Blue-sky shade: the CIE daylight locus at 10 000 K, xy 0.27880, 0.29197. */
  shade: [0.5873, 0.7208, 1],
  /** CIE F2 (cool white fluorescent, greener than any thermal light), xy 0.37208, 0.37529. */
  fluorescent: [1, 0.7037, 0.42],
} as const satisfies Record<string, Rgb>;

/** The photo under a coloured light: a gain per channel in linear light. */
export const underLight = (photo: RawFixture, cast: readonly number[]) =>
  changed(photo, (level, channel) => toLevel(toLinear(level) * cast[channel]));

/**
 * Underexposed as the issue describes it: every tone between 10 and 60. `stops` of exposure lost
 * (in linear light) before the camera's levels put black at 10 and white at 60, so the tones
 * crowd towards black as much as a real underexposure crowds them.
 */
export function underexposed(photo: RawFixture, stops: number): RawFixture {
  const white = toLevel(2 ** -stops);
  return changed(photo, (level) => 10 + (50 * toLevel(toLinear(level) * 2 ** -stops)) / white);
}

/**
 * Overexposed and washed out: `stops` more light in linear values, rolled off below white by a
 * camera's highlight shoulder (x -> g x / (1 + (g - 1) x): slope g at black, white stays white, so
 * near-white detail survives, crowded), then veiling flare adding `flare` of white to every tone,
 * which lifts the shadows.
 */
export function washedOut(photo: RawFixture, stops: number, flare: number): RawFixture {
  const gain = 2 ** stops;
  return changed(photo, (level) => {
    const linear = toLinear(level);
    return toLevel(flare + ((1 - flare) * gain * linear) / (1 + (gain - 1) * linear));
  });
}
