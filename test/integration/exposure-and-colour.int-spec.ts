import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { decodeRgba, fromFixture, type RawFixture } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { jobsClient, waitForJob } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { productShot, type Backdrop } from '../support/product-shots';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import {
  cardDeltaE,
  exposureFigures,
  hueDifference,
  meanChannelChange,
  meanLuma,
  meanLumaChange,
  productColour,
  productHighlights,
  rounded,
  tonalRange,
  whiteBackgroundFigures,
} from '../support/tone-figures';
import { LIGHTS, litScene, photograph, reportedWarmCast, washedOutResponse } from '../support/lit-scenes';
import {
  CASTS,
  toneScene,
  underexposed,
  underLight,
  washedOut,
  type SceneName,
  type ToneScene,
} from '../support/tone-scenes';

/**
 * `adjustments.light` and `adjustments.color` judged on decoded pixels against the photo they were
 * made from: product photos drawn here (tone-scenes: shading, a specular highlight, printed text,
 * a backdrop gradient, some with an 18 % grey card; product-shots: SVG products on several
 * backdrops), relit in linear light as a camera would have recorded them, sent through the API
 * with a live key and edited by a real worker.
 */

type Decoded = Awaited<ReturnType<typeof decodeRgba>>;

interface Scene {
  name: string;
  photo: RawFixture;
  /** 255 inside the product. */
  product: Uint8Array;
  card: ToneScene['card'];
}

const drawn = async (name: SceneName, card = false): Promise<Scene> => toneScene(name, { card });

async function shot(product: string, backdrop: Backdrop): Promise<Scene> {
  const made = await productShot(product, backdrop, { width: 640, height: 480 });
  const { data, info } = await sharp(made.jpeg).raw().toBuffer({ resolveWithObject: true });
  return {
    name: made.name,
    photo: { data, width: info.width, height: info.height, channels: 3 },
    product: made.mask,
    card: null,
  };
}

/** Every channel's smallest and largest level. */
function levelsOf(photo: RawFixture): [number, number] {
  let low = 255;
  let high = 0;
  for (const value of photo.data) {
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return [low, high];
}

describe('exposure and colour through the API and a live worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  let served = 0;

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    t = await createTestApp({ ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1' }, { role: ProcessRole.All });
    account = await seedAccount(t, { credits: 1000 });
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  /** Serves a photo as PNG, or as JPEG (quality 90) where the test says, and returns its URL. */
  async function serve(photo: RawFixture, format: 'png' | 'jpg' = 'png'): Promise<string> {
    const path = `/photo-${served++}.${format}`;
    server.serve(path, await encoded(photo, format), { contentType: format === 'png' ? 'image/png' : 'image/jpeg' });
    return server.url(path);
  }

  /** Edits every source with `operations` in one job; the decoded results in input order (all variants of each). */
  async function edited(
    sources: Array<{ url: string; id: string }>,
    operations: object,
    numberOfImages = 1,
  ): Promise<Map<string, Decoded[]>> {
    const jobs = jobsClient(t, () => account.liveKey, 120_000);
    const res = await jobs
      .create('/image/edit', {
        input: sources.map(({ url, id }) => ({ image_url: url, external_id: id })),
        operations,
        output: { format: 'png', number_of_images: numberOfImages },
      })
      .expect(202);
    const results = await jobs.results(res.body.job.id);
    const byId = new Map<string, Decoded[]>();
    for (const result of results) {
      expect({ id: result.external_id, status: result.status }).toEqual({
        id: result.external_id,
        status: 'completed',
      });
      const decoded = await jobs.download(result.result_url as string);
      byId.set(result.external_id, [...(byId.get(result.external_id) ?? []), decoded]);
    }
    return byId;
  }

  const only = (results: Map<string, Decoded[]>, id: string) => (results.get(id) as Decoded[])[0];

  it('light: lifts photos with every tone in 10..60 by 25+ levels, to a range over 120, unclipped', async () => {
    const scenes = [
      await drawn('bottle-on-sweep'),
      await drawn('box-on-table'),
      await drawn('can-on-grey'),
      await drawn('bottle-on-white'),
      await shot('carton', 'studio'),
      await shot('sneaker', 'tabletop'),
      await shot('bottle', 'clutter'),
      await shot('lamp', 'gradient'),
      await shot('ball', 'gradient'),
    ];
    // Two and a half to three and a half stops lost, the camera's levels putting black at 10 and white at 60.
    const sources = scenes.map((scene, i) => ({ scene, photo: underexposed(scene.photo, 2.5 + (i % 3) * 0.5) }));
    // The photo: mean luma 21.7, most of it near black (a dark sneaker on a dark backdrop).
    const dark = await shot('sneaker', 'similar');
    sources.push({ scene: dark, photo: underexposed(dark.photo, 3) });
    const results = await edited(
      await Promise.all(sources.map(async ({ scene, photo }) => ({ url: await serve(photo), id: scene.name }))),
      { adjustments: { light: true } },
    );
    const rows = sources.map(({ scene, photo }) => {
      const after = only(results, scene.name);
      const highlights = [productHighlights(photo, scene.product), productHighlights(after, scene.product)];
      return {
        scene: scene.name,
        'source levels': levelsOf(photo).join('..'),
        'mean before': rounded(meanLuma(photo)),
        'mean after': rounded(meanLuma(after)),
        'range before': rounded(tonalRange(photo)),
        'range after': rounded(tonalRange(after)),
        'product at 254+ %': rounded(100 * highlights[1].clipped, 2),
        'highlight levels before': highlights[0].distinctLevels,
        'highlight levels after': highlights[1].distinctLevels,
      };
    });
    console.log('Underexposed, light (mean and range of luma; range = p99 - p1):');
    console.table(rows);
    for (const [i, row] of rows.entries()) {
      const [low, high] = levelsOf(sources[i].photo);
      expect(low).toBeGreaterThanOrEqual(10);
      expect(high).toBeLessThanOrEqual(60);
      expect(row['mean after'] - row['mean before']).toBeGreaterThanOrEqual(25);
      expect(row['range after']).toBeGreaterThan(120);
      expect(row['product at 254+ %']).toBeLessThanOrEqual(0.5);
      expect(row['highlight levels after']).toBeGreaterThanOrEqual(row['highlight levels before']);
    }
  });

  it('light: pulls washed-out photos down, spreading their crowded midtones, whites kept', async () => {
    const scenes = [
      await shot('mug', 'gradient'),
      await shot('backpack', 'gradient'),
      await shot('ball', 'gradient'),
      await shot('lamp', 'gradient'),
      await shot('carton', 'similar'),
      await shot('chair', 'similar'),
    ];
    // Two to three stops too much, rolled off by the camera below white, with 4 to 8 % veiling flare.
    const sources = scenes.map((scene, i) => ({
      scene,
      photo: washedOut(scene.photo, 2 + (i % 3) * 0.5, 0.04 + (i % 2) * 0.04),
    }));
    const results = await edited(
      await Promise.all(sources.map(async ({ scene, photo }) => ({ url: await serve(photo), id: scene.name }))),
      { adjustments: { light: true } },
    );
    const rows = sources.map(({ scene, photo }) => {
      const after = only(results, scene.name);
      return { scene: scene.name, ...exposureFigures(photo, after) };
    });
    console.log('Overexposed and washed out, light (midtone contrast = luma p75 - p25; white = luma p99.5):');
    console.table(rows);
    for (const row of rows) {
      expect(row['mean before'] - row['mean after']).toBeGreaterThanOrEqual(10);
      expect(row['midtone contrast after']).toBeGreaterThanOrEqual(1.2 * row['midtone contrast before']);
      expect(row['range after']).toBeGreaterThan(row['range before']);
      expect(row['white after']).toBeGreaterThanOrEqual(row['white before'] - 3);
    }
  });

  it('light: leaves white-background product shots alone: bright is not overexposed', async () => {
    const scenes = [await drawn('bottle-on-white'), await drawn('white-mug-on-white'), await shot('mug', 'light')];
    const results = await edited(
      await Promise.all(scenes.map(async (scene) => ({ url: await serve(scene.photo), id: scene.name }))),
      { adjustments: { light: true } },
    );
    const rows = scenes.map((scene) => {
      const after = only(results, scene.name);
      return { scene: scene.name, ...whiteBackgroundFigures(scene.photo, after, scene.product) };
    });
    console.log('White background, light (background = mean luma outside the product):');
    console.table(rows);
    for (const row of rows) {
      expect(row['mean |luma change|']).toBeLessThanOrEqual(3);
      expect(Math.abs(row['background after'] - row['background before'])).toBeLessThanOrEqual(2);
    }
  });

  it('light and color: leave well-exposed photos within 3 levels of luma', async () => {
    const scenes = [
      await drawn('bottle-on-sweep'),
      await drawn('box-on-table'),
      await drawn('can-on-grey'),
      await drawn('red-cushion'),
      await shot('carton', 'studio'),
      await shot('mug', 'gradient'),
      await shot('sneaker', 'tabletop'),
      await shot('bottle', 'clutter'),
    ];
    const results = await edited(
      await Promise.all(scenes.map(async (scene) => ({ url: await serve(scene.photo), id: scene.name }))),
      { adjustments: { light: true, color: true } },
    );
    const rows = scenes.map((scene) => {
      const after = only(results, scene.name);
      return {
        scene: scene.name,
        'mean before': rounded(meanLuma(scene.photo)),
        'mean after': rounded(meanLuma(after)),
        'mean |luma change|': rounded(meanLumaChange(scene.photo, after), 2),
        'mean |channel change|': rounded(meanChannelChange(scene.photo, after), 2),
      };
    });
    console.log('Well exposed, light and color:');
    console.table(rows);
    for (const row of rows) expect(row['mean |luma change|']).toBeLessThanOrEqual(3);
  });

  it('color: brings a grey card under tungsten and blue shade within Delta E 3 of neutral', async () => {
    const scenes = [
      await drawn('bottle-on-sweep', true),
      await drawn('box-on-table', true),
      await drawn('can-on-grey', true),
    ];
    const casts = ['tungsten', 'shade', 'fluorescent'] as const;
    const sources = scenes.flatMap((scene) =>
      casts.map((cast) => ({ scene, cast, id: `${scene.name}/${cast}`, photo: underLight(scene.photo, CASTS[cast]) })),
    );
    // A red product filling the frame, with a card, under tungsten.
    const red = await drawn('red-cushion', true);
    sources.push({
      scene: red,
      cast: 'tungsten',
      id: `${red.name}/tungsten`,
      photo: underLight(red.photo, CASTS.tungsten),
    });
    const jpegs = await Promise.all(
      sources.map(async (source) => ({ ...source, url: await serve(source.photo, 'jpg') })),
    );
    const results = await edited(
      jpegs.map(({ url, id }) => ({ url, id })),
      { adjustments: { color: true } },
    );
    const rows = await Promise.all(
      jpegs.map(async ({ scene, cast, id, photo }) => {
        const card = scene.card as NonNullable<ToneScene['card']>;
        // Measured on what was sent: the JPEG the worker decoded.
        const source = await decodeRgba(await encoded(photo, 'jpg'));
        const before = cardDeltaE(source, card);
        const after = cardDeltaE(only(results, id), card);
        return {
          scene: scene.name,
          cast,
          'card L*': rounded(after.lab[0]),
          'card a*, b* before': `${rounded(before.lab[1])}, ${rounded(before.lab[2])}`,
          'card a*, b* after': `${rounded(after.lab[1])}, ${rounded(after.lab[2])}`,
          'card dE00 before': rounded(before.deltaE, 2),
          'card dE00 after': rounded(after.deltaE, 2),
        };
      }),
    );
    console.log('Colour casts, color (Delta E 2000 of the grey card from a*=b*=0 at its own L*):');
    console.table(rows);
    for (const row of rows) {
      expect(row['card dE00 before']).toBeGreaterThan(3);
      expect(row['card dE00 after']).toBeLessThanOrEqual(3);
    }
  });

  it('color: keeps a red product red, with a grey card, without one, and with nothing grey in the photo', async () => {
    const scenes = [await drawn('red-cushion'), await drawn('red-cushion', true), await drawn('red-ball-on-pink')];
    const ids = scenes.map((scene, i) => `${scene.name}-${i}`);
    const results = await edited(
      await Promise.all(scenes.map(async (scene, i) => ({ url: await serve(scene.photo, 'jpg'), id: ids[i] }))),
      { adjustments: { light: true, color: true } },
    );
    const rows = scenes.map((scene, i) => {
      const before = productColour(scene.photo, scene.product);
      const after = productColour(only(results, ids[i]), scene.product);
      return {
        scene: `${scene.name}${scene.card ? ' + card' : ''}`,
        'hue before': rounded(before.hue),
        'hue after': rounded(after.hue),
        'chroma before': rounded(before.chroma),
        'chroma after': rounded(after.chroma),
      };
    });
    console.log('Red product, light and color (CIELAB hue angle and chroma of its mean colour):');
    console.table(rows);
    for (const row of rows) {
      // Red stays red: the hue within 5 degrees, the chroma within 10 % (the saturation boost may add some).
      expect(Math.abs(hueDifference(row['hue before'], row['hue after']))).toBeLessThanOrEqual(5);
      expect(row['chroma after'] / row['chroma before']).toBeGreaterThanOrEqual(0.9);
      expect(row['chroma after'] / row['chroma before']).toBeLessThanOrEqual(1.1);
    }
  });

  it('light: pulls the reported washed-out photo down, and photos with nothing below 150', async () => {
    // The report: a light wall, a coloured product, a brown table, every tone 150..255, mean ~220.
    const scenes = [
      { id: 'reported', scene: litScene({ seed: 29, products: ['red'], productShare: 0.25, wall: [0.7, 0.68, 0.64] }) },
      { id: 'blue', scene: litScene({ seed: 31, products: ['blue'] }) },
      { id: 'green', scene: litScene({ seed: 32, products: ['green'], card: true }) },
    ];
    const sources = scenes.map(({ id, scene }, i) => ({
      id,
      photo: photograph(scene, { seed: 29 + i, encode: washedOutResponse(150 + 3 * i, 0.8 + 0.3 * i) }),
    }));
    const results = await edited(
      await Promise.all(sources.map(async ({ id, photo }) => ({ url: await serve(photo), id }))),
      { adjustments: { light: true } },
    );
    const rows = sources.map(({ id, photo }) => {
      const after = only(results, id);
      return { scene: id, 'source levels': levelsOf(photo).join('..'), ...exposureFigures(photo, after) };
    });
    console.log('Washed out with nothing dark, light:');
    console.table(rows);
    for (const row of rows) {
      expect(row['mean before'] - row['mean after']).toBeGreaterThanOrEqual(15);
      expect(row['range after']).toBeGreaterThanOrEqual(1.3 * row['range before']);
      expect(row['midtone contrast after']).toBeGreaterThanOrEqual(1.2 * row['midtone contrast before']);
      expect(row['white after']).toBeGreaterThanOrEqual(row['white before'] - 3);
    }
  });

  it('color: removes casts with saturated products filling the frame, keeping their hues', async () => {
    // The report: a red ball and a blue box under a light that makes an 18 % grey (139, 119, 86).
    const cases = [
      { id: 'reported warm', ...reportedWarmCast() },
      ...Object.entries(LIGHTS).map(([name, light], i) => ({
        id: `red+blue+green/${name}`,
        light,
        scene: litScene({ seed: 300 + i, products: ['red', 'blue', 'green'], card: true }),
      })),
    ];
    const sources = cases.map(({ id, light, scene }, i) => ({
      id,
      scene,
      truth: photograph(scene, { seed: i }),
      photo: photograph(scene, { seed: i, light }),
    }));
    const results = await edited(
      await Promise.all(sources.map(async ({ id, photo }) => ({ url: await serve(photo, 'jpg'), id }))),
      { adjustments: { color: true } },
    );
    const rows = sources.map(({ id, scene, truth, photo }) => {
      const after = only(results, id);
      const card = scene.card as NonNullable<ToneScene['card']>;
      const hueErrors = scene.products.map(({ mask }) =>
        hueDifference(productColour(truth, mask).hue, productColour(after, mask).hue),
      );
      return {
        scene: id,
        'card dE00 before': rounded(cardDeltaE(photo, card).deltaE, 2),
        'card dE00 after': rounded(cardDeltaE(after, card).deltaE, 2),
        'hue errors': hueErrors.map((error) => rounded(error)).join(', '),
        'worst hue error': rounded(Math.max(...hueErrors.map(Math.abs))),
      };
    });
    console.log(
      'Casts over saturated products, color (card dE00 from neutral; product hue against the photo under D65):',
    );
    console.table(rows);
    for (const row of rows) {
      expect(row['card dE00 after']).toBeLessThanOrEqual(3);
      expect(row['worst hue error']).toBeLessThanOrEqual(3);
    }
  });

  it('product_photo_enhance does not damage a well-exposed white-background shot', async () => {
    const scenes = [await drawn('bottle-on-white'), await drawn('white-mug-on-white'), await shot('bottle', 'light')];
    const jobs = jobsClient(t, () => account.liveKey, 120_000);
    const res = await jobs
      .create('/product-photo-jobs', {
        images: await Promise.all(
          scenes.map(async (scene) => ({ source_url: await serve(scene.photo), external_id: scene.name })),
        ),
        operation: 'product_photo_enhance',
      })
      .expect(202);
    await waitForJob(t, res.body.job.id, undefined, 120_000);
    const read = await t
      .http()
      .get(`/api/v1/product-image-enhancements/${res.body.job.id}`)
      .set(bearer(account.liveKey))
      .expect(200);
    const items = read.body.enhancement.items as Array<{ external_id: string; result_url: string }>;
    const rows = await Promise.all(
      scenes.map(async (scene) => {
        const item = items.find((candidate) => candidate.external_id === scene.name) as { result_url: string };
        const after = await jobs.download(item.result_url);
        return { scene: scene.name, ...whiteBackgroundFigures(scene.photo, after, scene.product) };
      }),
    );
    console.log('White background, product_photo_enhance (light, color and polish; jpg; background as above):');
    console.table(rows);
    for (const row of rows) {
      expect(row['mean |luma change|']).toBeLessThanOrEqual(3);
      expect(Math.abs(row['background after'] - row['background before'])).toBeLessThanOrEqual(2);
    }
  });

  it('keeps number_of_images variants different: each its own brightness and saturation', async () => {
    const dark = underexposed((await drawn('can-on-grey')).photo, 3);
    const well = (await shot('carton', 'studio')).photo;
    const results = await edited(
      [
        { url: await serve(dark), id: 'underexposed' },
        { url: await serve(well), id: 'well-exposed' },
      ],
      { adjustments: { light: true, color: true } },
      3,
    );
    const rows = ['underexposed', 'well-exposed'].flatMap((id) =>
      (results.get(id) as Decoded[]).map((image, variant) => ({
        source: id,
        variant: variant + 1,
        mean: rounded(meanLuma(image), 2),
      })),
    );
    console.log('Variants (brightness offsets 0, +6 %, -4 %; saturation 0, +5 %, +10 %):');
    console.table(rows);
    for (const id of ['underexposed', 'well-exposed']) {
      const images = results.get(id) as Decoded[];
      expect(new Set(images.map((image) => image.data.toString('base64'))).size).toBe(3);
      const [first, second, third] = images.map(meanLuma);
      expect(second).toBeGreaterThan(first);
      expect(third).toBeLessThan(first);
    }
  });
});

/** The photo as the test serves it. */
function encoded(photo: RawFixture, format: 'png' | 'jpg'): Promise<Buffer> {
  const image = fromFixture(photo);
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 90 }).toBuffer();
}
