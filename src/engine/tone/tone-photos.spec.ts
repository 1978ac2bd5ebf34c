import type { RawImage } from '../raw-image';
import { analyseTone, applyTone, type ToneRequest } from './tone';
import {
  LIGHTS,
  litScene,
  photograph,
  reportedWarmCast,
  washedOutResponse,
  type LitScene,
  type ProductColour,
} from '../../../test/support/lit-scenes';
import {
  cardDeltaE,
  hueDifference,
  meanLuma,
  meanLumaChange,
  midtoneContrast,
  productColour,
  tonalRange,
  whiteLevel,
} from '../../../test/support/tone-figures';
import sharp from 'sharp';
import { fromFixture, type RawFixture } from '../../../test/support/image-fixtures';

/**
 * `light` and `color` on many varied tabletop photos drawn in linear light (lit-scenes): washed
 * out, overexposed, white-background packshots, well exposed and dark; and casts of tungsten,
 * shade and fluorescent light over saturated red, blue and green products, each filling about a
 * third of the frame. Each case holds on every seed; the figures are printed for the record.
 */

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const SEEDS = [1, 2, 3, 4, 5, 6];
const SIZE = { width: 240, height: 180 };

function corrected(photo: RawFixture, overrides: Partial<ToneRequest>): RawFixture {
  const image: RawImage = { ...photo, data: Buffer.from(photo.data) };
  const tone = analyseTone(image, {
    light: false,
    color: false,
    brightnessOffset: 0,
    saturationOffset: 0,
    ...overrides,
  });
  if (tone.map) applyTone(image, tone.map);
  return image;
}

async function jpegRoundTrip(photo: RawFixture): Promise<RawFixture> {
  const jpeg = await fromFixture(photo).jpeg({ quality: 90 }).toBuffer();
  return { ...photo, data: await sharp(jpeg).raw().toBuffer() };
}

function levels(photo: RawFixture): [number, number] {
  let low = 255;
  let high = 0;
  for (const value of photo.data) {
    low = Math.min(low, value);
    high = Math.max(high, value);
  }
  return [low, high];
}

/** Mean, tonal range, midtone contrast and white of a photo before and after `light`. */
function exposureRow(name: string, before: RawFixture) {
  const after = corrected(before, { light: true });
  return {
    scene: name,
    'mean before': round(meanLuma(before)),
    'mean after': round(meanLuma(after)),
    'range before': round(tonalRange(before)),
    'range after': round(tonalRange(after)),
    'midtones before': round(midtoneContrast(before)),
    'midtones after': round(midtoneContrast(after)),
    'white before': round(whiteLevel(before)),
    'white after': round(whiteLevel(after)),
    'mean |change|': round(meanLumaChange(before, after), 2),
  };
}

const productSets: ProductColour[][] = [['red'], ['blue'], ['green'], ['red', 'blue', 'green']];

describe('light on varied photos', () => {
  it('pulls washed-out photos (nothing below 150) down: mean lower, midtones spread, whites kept', () => {
    const rows = SEEDS.flatMap((seed) =>
      productSets.slice(0, 3).map((products, i) => {
        const scene = litScene({ ...SIZE, seed: seed * 10 + i, products, card: seed % 2 === 0 });
        const photo = photograph(scene, {
          seed,
          encode: washedOutResponse(152 + (seed % 3) * 4, 0.6 + (seed % 4) * 0.3),
        });
        expect(levels(photo)[0]).toBeGreaterThanOrEqual(145);
        return exposureRow(scene.name, photo);
      }),
    );
    console.log('Washed out (luma; range = p99 - p1, midtones = p75 - p25, white = p99.5):');
    console.table(rows);
    for (const row of rows) {
      expect(row['mean before'] - row['mean after']).toBeGreaterThanOrEqual(10);
      expect(row['midtones after']).toBeGreaterThanOrEqual(1.2 * row['midtones before']);
      expect(row['range after']).toBeGreaterThanOrEqual(1.3 * row['range before']);
      expect(row['white after']).toBeGreaterThanOrEqual(row['white before'] - 3);
    }
  });

  it('pulls the reported washed-out photo down: light wall, coloured product, brown table, mean ~220', () => {
    const scene = litScene({ ...SIZE, seed: 29, products: ['red'], productShare: 0.25, wall: [0.7, 0.68, 0.64] });
    const photo = photograph(scene, { seed: 29, encode: washedOutResponse(150, 0.8) });
    const row = exposureRow('reported', photo);
    console.table([{ ...row, 'levels before': levels(photo).join('..') }]);
    expect(levels(photo)[0]).toBeGreaterThanOrEqual(145);
    expect(row['mean before']).toBeGreaterThan(212);
    expect(row['mean before'] - row['mean after']).toBeGreaterThanOrEqual(15);
    expect(row['range after']).toBeGreaterThanOrEqual(1.3 * row['range before']);
    expect(row['midtones after']).toBeGreaterThanOrEqual(1.2 * row['midtones before']);
    expect(row['white after']).toBeGreaterThanOrEqual(row['white before'] - 3);
  });

  it('pulls overexposed photos with clipped highlights down, whites kept', () => {
    const rows = SEEDS.flatMap((seed) =>
      productSets.slice(0, 2).map((products, i) => {
        const scene = litScene({ ...SIZE, seed: seed * 10 + i + 5, products, card: seed % 2 === 1 });
        return exposureRow(scene.name, photograph(scene, { seed, exposure: 2 ** (1.5 + (seed % 3) * 0.25) }));
      }),
    );
    console.log('Overexposed with clipped highlights:');
    console.table(rows);
    for (const row of rows) {
      expect(row['mean before'] - row['mean after']).toBeGreaterThanOrEqual(5);
      expect(row['midtones after']).toBeGreaterThanOrEqual(row['midtones before']);
      expect(row['range after']).toBeGreaterThanOrEqual(row['range before']);
      expect(row['white after']).toBeGreaterThanOrEqual(row['white before'] - 3);
    }
  });

  it('leaves packshots on white and well-exposed photos within 3 levels, and lifts dark ones', () => {
    const packshots = SEEDS.map((seed) => {
      const scene = litScene({
        ...SIZE,
        seed: seed + 40,
        products: productSets[seed % 4],
        productShare: 0.2,
        whiteSweep: true,
      });
      return exposureRow(`packshot ${scene.name}`, photograph(scene, { seed }));
    });
    const well = SEEDS.map((seed) => {
      const scene = litScene({ ...SIZE, seed: seed + 50, products: productSets[seed % 4], card: seed % 2 === 0 });
      return exposureRow(`well exposed ${scene.name}`, photograph(scene, { seed }));
    });
    const dark = SEEDS.map((seed) => {
      const scene = litScene({ ...SIZE, seed: seed + 60, products: productSets[seed % 4] });
      return exposureRow(`dark ${scene.name}`, photograph(scene, { seed, exposure: 2 ** -(2 + (seed % 3) * 0.5) }));
    });
    // A pale product (no darks of its own) on white is a packshot too: its backdrop runs all round.
    const pale = SEEDS.map((seed) => {
      const scene = litScene({ ...SIZE, seed: seed + 70, products: ['cream'], productShare: 0.2, whiteSweep: true });
      return exposureRow(`pale packshot ${scene.name}`, photograph(scene, { seed }));
    });
    console.log('Packshots on white, pale packshots on white, well exposed, dark:');
    console.table([...packshots, ...pale, ...well, ...dark]);
    for (const row of [...packshots, ...pale, ...well]) expect(row['mean |change|']).toBeLessThanOrEqual(3);
    for (const row of dark) expect(row['mean after'] - row['mean before']).toBeGreaterThanOrEqual(15);
  });
});

/** The grey card's ΔE2000 from neutral and each product's hue error after `color`, against the photo under D65. */
async function colourRow(scene: LitScene, light: readonly number[], lightName: string, seed: number, jpeg = false) {
  const truth = photograph(scene, { seed });
  const lit = photograph(scene, { seed, light });
  // As a camera or a client sends it: JPEG at quality 90, chroma subsampled.
  const cast = jpeg ? await jpegRoundTrip(lit) : lit;
  const after = corrected(cast, { color: true });
  const card = scene.card as NonNullable<LitScene['card']>;
  const hues = scene.products.map(({ colour, mask }) => {
    const error = hueDifference(productColour(truth, mask).hue, productColour(after, mask).hue);
    return { colour, error };
  });
  return {
    scene: `${scene.name}${jpeg ? ' jpg' : ''}`,
    light: lightName,
    'card dE00 before': round(cardDeltaE(cast, card).deltaE, 2),
    'card dE00 after': round(cardDeltaE(after, card).deltaE, 2),
    'hue errors': hues.map(({ colour, error }) => `${colour} ${round(error)}`).join(', '),
    'worst hue error': round(Math.max(...hues.map(({ error }) => Math.abs(error)))),
  };
}

describe('color on varied photos', () => {
  const lights = Object.entries(LIGHTS);

  it.each(productSets.map((products) => [products.join('+'), products]))(
    'removes tungsten, shade and fluorescent casts with %s filling the frame',
    async (_, products) => {
      const rows = await Promise.all(
        SEEDS.flatMap((seed) =>
          lights.map(([name, light], i) => {
            const scene = litScene({ ...SIZE, seed: seed * 100 + i, products: products, card: true });
            return colourRow(scene, light, name, seed, seed % 2 === 1);
          }),
        ),
      );
      console.table(rows);
      for (const row of rows) {
        expect(row['card dE00 after']).toBeLessThanOrEqual(3);
        expect(row['worst hue error']).toBeLessThanOrEqual(3);
      }
    },
  );

  it('removes the reported warm cast: red ball, blue box, light wall, grey card at (139, 119, 86)', async () => {
    const { scene, light } = reportedWarmCast();
    const row = await colourRow(scene, light, 'reported warm', 29);
    console.table([row]);
    expect(row['card dE00 after']).toBeLessThanOrEqual(3);
    expect(row['worst hue error']).toBeLessThanOrEqual(3);
  });
});
