import { gaussian, random, type RawFixture } from './image-fixtures';
import type { Rectangle } from './tone-scenes';

/**
 * Tabletop photos drawn pixel by pixel in linear light, for judging exposure and white balance on
 * many varied scenes: a light wall (off-white or grey, with a lighting gradient), a wooden table
 * (brown, with grain), one or more saturated products (a shaded ball or a two-faced box) and often
 * an 18 % grey card. A seed varies every tone, size, position and texture. The scene is reflectance
 * times illumination, lit by a light whose colour is a gain per channel in linear sRGB (von Kries
 * relative to D65, as a camera balanced for daylight records it), then encoded with sensor noise.
 */

export type Linear = [number, number, number];
/** Saturated products, and a pale one (cream) with no dark tones of its own. */
export type ProductColour = 'red' | 'blue' | 'green' | 'cream';

/** Saturated product reflectances in linear sRGB: each is varied a little by the seed. */
const PRODUCTS: Record<ProductColour, Linear> = {
  red: [0.55, 0.035, 0.03],
  blue: [0.025, 0.07, 0.48],
  green: [0.04, 0.32, 0.05],
  cream: [0.62, 0.55, 0.4],
};

const toLinear = (level: number) => {
  const c = level / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const toEncoded = (linear: number) => {
  const c = Math.min(1, Math.max(0, linear));
  return 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
};

/** CIE xy of a light: the Planckian locus (Kim et al. 2002) below 4000 K, CIE daylight above. */
function lightXy(kelvin: number): [number, number] {
  const m = 1e3 / kelvin;
  if (kelvin < 4000) {
    const x = ((-0.2661239 * m - 0.2343589) * m + 0.8776956) * m + 0.17991;
    return [x, ((-0.9549476 * x - 1.37418593) * x + 2.09137015) * x - 0.16748867];
  }
  const x =
    kelvin <= 7000
      ? ((-4.607 * m + 2.9678) * m + 0.09911) * m + 0.244063
      : ((-2.0064 * m + 1.9018) * m + 0.24748) * m + 0.23704;
  return [x, (-3 * x + 2.87) * x - 0.275];
}

/**
 * A light's white relative to D65 in linear sRGB, strongest channel 1: XYZ of its xy through sRGB's
 * matrix, whose D65 white is (1, 1, 1). `greenTint` multiplies green (a fluorescent tube's tint).
 */
export function lightOf(kelvin: number, greenTint = 1): Linear {
  const [x, y] = lightXy(kelvin);
  const X = x / y;
  const Z = (1 - x - y) / y;
  const rgb = [
    3.2404542 * X - 1.5371385 - 0.4985314 * Z,
    (-0.969266 * X + 1.8760108 + 0.041556 * Z) * greenTint,
    0.0556434 * X - 0.2040259 + 1.0572252 * Z,
  ];
  const top = Math.max(...rgb);
  return rgb.map((value) => value / top) as Linear;
}

export const LIGHTS = {
  tungsten: lightOf(2850),
  shade: lightOf(7500),
  fluorescent: lightOf(4000, 1.1),
} as const satisfies Record<string, Linear>;

export interface LitScene {
  name: string;
  /** Reflectance (linear sRGB, under D65) times illumination, per pixel: the photo before its light. */
  linear: Float32Array;
  width: number;
  height: number;
  /** One mask per product, 255 inside it (its outline left out). */
  products: Array<{ colour: ProductColour; mask: Uint8Array }>;
  /** Inside the grey card (its edges left out), or null. */
  card: Rectangle | null;
}

export interface SceneOptions {
  seed: number;
  products: ProductColour[];
  /** Share of the frame each product fills, about (0.33 by default). */
  productShare?: number;
  card?: boolean;
  width?: number;
  height?: number;
  /** The wall's reflectance; by default a light grey or off-white from the seed. */
  wall?: Linear;
  /** The card's reflectance; an 18 % grey by default. */
  cardReflectance?: Linear;
  /** A studio packshot: wall and table one white sweep (exposed to clip), the product's shadow under it. */
  whiteSweep?: boolean;
}

/** Draws a scene (see the file's comment): reflectance times a lighting gradient, in linear light. */
export function litScene(options: SceneOptions): LitScene {
  const { seed, width = 320, height = 240 } = options;
  const next = random(seed * 7919 + 13);
  const between = (low: number, high: number) => low + (high - low) * next();
  const horizon = Math.round(height * between(0.55, 0.72));
  // A light wall: grey or slightly warm or cool off-white, 55-75 % reflectance.
  const wallLevel = between(0.45, 0.72);
  const wallTint = [between(0.96, 1.04), 1, between(0.95, 1.04)];
  const wall = options.wall ?? (wallTint.map((t) => t * wallLevel) as Linear);
  // A brown table, darker or lighter, with grain along x.
  const tableLevel = between(0.12, 0.3);
  const table: Linear = [tableLevel, tableLevel * between(0.55, 0.7), tableLevel * between(0.3, 0.45)];
  const grainFrequency = between(0.05, 0.2);
  const grainPhase = between(0, 10);
  // Light falls off across the frame: from one side and from the top.
  const falloffX = between(-0.35, 0.35);
  const falloffY = between(0, 0.25);

  const products = options.products.map((colour, index) => {
    const base = PRODUCTS[colour];
    const vary = between(0.8, 1.15);
    const reflectance = base.map(
      (value, c) => value * (c === base.indexOf(Math.max(...base)) ? vary : between(0.7, 1.3)),
    );
    const share = (options.productShare ?? 0.33) * between(0.85, 1.15);
    const kind = next() < 0.5 ? 'ball' : 'box';
    // Side by side when there are several, each in its own column of the frame.
    const columns = options.products.length;
    const columnWidth = width / columns;
    const area = share * width * height;
    const radius = Math.min(Math.sqrt(area / Math.PI), columnWidth * 0.48, height * 0.46);
    const boxWidth = Math.min(Math.sqrt(area * between(0.7, 1.3)), columnWidth * 0.95);
    const boxHeight = Math.min(area / boxWidth, height * 0.9);
    const centreX = columnWidth * (index + 0.5) + between(-0.1, 0.1) * columnWidth;
    const centreY = Math.min(
      height - (kind === 'ball' ? radius : boxHeight / 2) - 2,
      horizon + between(-0.15, 0.05) * height,
    );
    return { colour, reflectance, kind, radius, boxWidth, boxHeight, centreX, centreY };
  });

  const cardSide = Math.round(Math.sqrt(width * height * between(0.03, 0.06)));
  const cardLeft = Math.round(between(0.02, 0.98) * (width - cardSide));
  const cardTop = Math.round(between(0.05, 0.3) * height);
  const card = options.card
    ? { left: cardLeft + 2, top: cardTop + 2, width: cardSide - 4, height: cardSide - 4 }
    : null;
  const cardReflectance = options.cardReflectance ?? [0.18, 0.18, 0.18];

  const linear = new Float32Array(width * height * 3);
  const masks = products.map(() => new Uint8Array(width * height));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const light = (1 + falloffX * (x / width - 0.5)) * (1 - falloffY * (y / height));
      let colour: readonly number[] = options.whiteSweep
        ? [1.8, 1.8, 1.8]
        : y < horizon
          ? wall
          : table.map(
              (value) => value * (1 + 0.18 * Math.sin(grainFrequency * x + grainPhase + 0.3 * Math.sin(y * 0.7))),
            );
      let shade = light;
      if (!options.whiteSweep && y >= horizon && y < horizon + 6) shade *= 0.55 + 0.075 * (y - horizon);
      // The card stands in front of everything.
      const onCard = card && x >= cardLeft && x < cardLeft + cardSide && y >= cardTop && y < cardTop + cardSide;
      if (onCard) colour = cardReflectance;
      for (let i = onCard ? -1 : products.length - 1; i >= 0; i--) {
        const product = products[i];
        const dx = x - product.centreX;
        const dy = y - product.centreY;
        if (product.kind === 'ball') {
          const r = Math.hypot(dx, dy) / product.radius;
          if (r > 1) continue;
          // Lit from the upper left: Lambertian shading of a sphere, with a soft specular spot.
          const nz = Math.sqrt(1 - Math.min(1, r * r));
          const lambert = Math.max(0.12, (-0.4 * dx) / product.radius - (0.4 * dy) / product.radius + 0.82 * nz);
          const specular =
            0.5 * Math.exp(-((dx / product.radius + 0.35) ** 2 + (dy / product.radius + 0.35) ** 2) / 0.01);
          colour = product.reflectance.map((value) => value * lambert + specular);
          shade = light;
          if (r < 0.97) masks[i][p] = 255;
        } else {
          if (Math.abs(dx) > product.boxWidth / 2 || Math.abs(dy) > product.boxHeight / 2) continue;
          // Front face lit, side face (the right fifth) in shadow, a white label band.
          const side = dx > product.boxWidth * 0.3;
          const label = Math.abs(dy) < product.boxHeight * 0.06 && !side;
          colour = label ? [0.8, 0.8, 0.8] : product.reflectance.map((value) => value * (side ? 0.45 : 1));
          shade = light;
          if (!label && Math.abs(dx) < product.boxWidth / 2 - 2 && Math.abs(dy) < product.boxHeight / 2 - 2) {
            masks[i][p] = 255;
          }
        }
        break;
      }
      for (let c = 0; c < 3; c++) linear[p * 3 + c] = colour[c] * shade;
    }
  }
  return {
    name: `${options.products.join('+') || 'empty'}#${seed}`,
    linear,
    width,
    height,
    products: products.map((product, i) => ({ colour: product.colour, mask: masks[i] })),
    card,
  };
}

/**
 * The scene as an 8-bit photo: lit by `light` (linear gains), exposed by `exposure` (a gain), with
 * `noise` levels of sensor noise; `encode` may replace the camera's tone response (linear 0..∞ to
 * an encoded level, noise added after).
 */
export interface Camera {
  light?: readonly number[];
  exposure?: number;
  noise?: number;
  seed?: number;
  encode?: (linear: number) => number;
}

export function photograph(
  scene: LitScene,
  { light = [1, 1, 1], exposure = 1, noise = 1.5, seed = 1, encode = toEncoded }: Camera = {},
): RawFixture {
  const grain = gaussian(random(seed));
  const data = Buffer.alloc(scene.width * scene.height * 3);
  for (let p = 0; p < scene.width * scene.height; p++) {
    const common = noise * grain();
    for (let c = 0; c < 3; c++) {
      const level = encode(scene.linear[p * 3 + c] * light[c] * exposure) + common * 0.6 + noise * 0.5 * grain();
      data[p * 3 + c] = Math.max(0, Math.min(255, Math.round(level)));
    }
  }
  return { data, width: scene.width, height: scene.height, channels: 3 };
}

/** A tone response that clips nothing and puts every tone between `floor` and 255 (flare and a soft shoulder). */
export const washedOutResponse = (floor: number, stops: number) => (linear: number) => {
  const gain = 2 ** stops;
  const lifted = Math.min(1, (gain * linear) / (1 + (gain - 1) * Math.min(1, linear)));
  return floor + (255 - floor) * (toEncoded(lifted) / 255);
};

export { toEncoded as encodedOfLinear, toLinear as linearOfLevel };

/**
 * The warm cast a customer reported: a light that turns an 18 % grey card into (139, 119, 86),
 * over a red ball and a blue box on a light wall, with a grey card that lands on that colour
 * under it. `light` is the light's colour with its strongest channel 1, as `photograph` takes it.
 */
export function reportedWarmCast(): { scene: LitScene; light: Linear } {
  const linear = [139, 119, 86].map((level) => ((level / 255 + 0.055) / 1.055) ** 2.4);
  const top = Math.max(...linear);
  const scene = litScene({
    seed: 2900,
    products: ['red', 'blue'],
    productShare: 0.3,
    card: true,
    wall: [0.62, 0.62, 0.62],
    cardReflectance: [top, top, top],
  });
  return { scene, light: linear.map((value) => value / top) as Linear };
}
