import sharp from 'sharp';
import { decodeRgba } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { localModelApp } from '../support/live-cutouts';
import { creditTotals, jobsClient, waitForJob, writtenRows, type ResultBody } from '../support/jobs';
import {
  alphaIoU,
  hardShot,
  HELD_OUT_PROP_FAMILIES,
  PRODUCTS,
  productShot,
  type Backdrop,
  type HardShot,
  type ProductShot,
} from '../support/product-shots';
import { hardQualitySpecs, plainQualityShots, qualitySet } from '../support/product-shots/quality-sets';
import { bearer, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { errorCorrelation, rankingSummary, reviewRecall } from '../support/uncertainty-ranking';
import { readUntil } from '../support/waiting';

type Decoded = Awaited<ReturnType<typeof decodeRgba>>;

/** The mask's bounding box. */
function boundsOf(mask: Uint8Array, width: number): { left: number; top: number; right: number; bottom: number } {
  let left = Infinity;
  let top = Infinity;
  let right = -1;
  let bottom = -1;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] < 128) continue;
    const x = i % width;
    const y = Math.floor(i / width);
    left = Math.min(left, x);
    right = Math.max(right, x);
    top = Math.min(top, y);
    bottom = Math.max(bottom, y);
  }
  return { left, top, right, bottom };
}

const alphaOf = (image: Decoded) =>
  Uint8Array.from({ length: image.width * image.height }, (_, i) => image.data[i * 4 + 3]);

/** Every pixel of the image's outer `band` rows and columns. */
function border(image: Decoded, band: number): number[][] {
  const pixels: number[][] = [];
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (x < band || y < band || x >= image.width - band || y >= image.height - band) pixels.push(image.pixel(x, y));
    }
  }
  return pixels;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Per group: shots, mean and worst IoU, one line each. */
function groupTable(rows: Array<{ group: string; iou: number }>): string {
  const groups = new Map<string, number[]>();
  for (const { group, iou } of rows) groups.set(group, [...(groups.get(group) ?? []), iou]);
  return [...groups]
    .map(
      ([group, values]) =>
        `${group.padEnd(30)} n=${String(values.length).padStart(3)} mean ${mean(values).toFixed(4)} ` +
        `worst ${Math.min(...values).toFixed(4)}`,
    )
    .join('\n');
}

/**
 * QUALITY_SET picks the shots scored (test/support/product-shots/quality-sets.ts): 'ci' (the
 * default) a fifth of each set, chosen by a rule on their places in the lists, 'full' all of them
 * (`npm run bench:quality:api`, figures in BENCHMARKS.md). The floors are per set: the full set's are
 * what it reaches today less a margin; the subset's are at least as tight unless its own figures
 * say otherwise, as noted where that is so.
 */
const SET = qualitySet();
const PLAIN_SHOTS = plainQualityShots(SET);
const HARD_SPECS = hardQualitySpecs(SET);
/** The plain shots the other tests use, whichever set is scored. */
const OTHER_SHOTS: ReadonlyArray<readonly [string, Backdrop]> = [
  [PRODUCTS[0], 'studio'],
  [PRODUCTS[1], 'tabletop'],
  [PRODUCTS[2], 'gradient'],
  [PRODUCTS[0], 'tabletop'],
  [PRODUCTS[3], 'clutter'],
  [PRODUCTS[4], 'similar'],
];
/**
 * Today (2026-11-27, BENCHMARKS.md "Quality"): full plain mean 0.9857, worst 0.9116; hard mean 0.8337. The subset:
 * plain mean 0.9840, worst 0.9300; hard mean 0.8469. Its worst plain shot and hard mean keep the full set's margins
 * (0.012 and 0.014) above their floors.
 *
 * The uncertainty (2026-11-28, BENCHMARKS.md "Uncertainty"): over the full set's 138 shots a rank correlation of
 * 0.766 with (1 - IoU), and a review threshold flagging 24.6 % of them catches 22 of the 35 with IoU below 0.9
 * (62.9 %). The full set asserts issue 38's correlation of 0.75; its recall floor is what it reaches less two shots,
 * short of the issue's 90 % (BENCHMARKS.md says which cut-outs it misses). The subset's 37 shots: 0.699 and 7 of
 * 12 (58 %). Over 30-40 shots Spearman's correlation is coarse (the earlier score's random 30-shot subsets ranged
 * from 0.36 to 0.73 around its full-set 0.59), so the subset's floors sit lower; a score that ranks nothing
 * (correlation about 0 +- 0.17, recall about 25 %) still fails them.
 */
const FLOORS = {
  full: {
    plainMean: 0.95,
    plainWorst: 0.9,
    hardMean: 0.82,
    rankCorrelation: 0.75,
    reviewRecall: 0.57,
    regionGain: 0.02,
  },
  ci: {
    plainMean: 0.95,
    plainWorst: 0.92,
    hardMean: 0.833,
    rankCorrelation: 0.55,
    reviewRecall: 0.4,
    regionGain: 0.02,
  },
}[SET];

describe('live background removal with the local model, through the API and a worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  const shots = new Map<string, ProductShot>();
  const hardShots = new Map<string, HardShot>();
  /** The names of the plain shots scored, in PLAIN_SHOTS's order. */
  const plainNames = PLAIN_SHOTS.map(({ product, backdrop }) => `${product}-on-${backdrop}`);

  beforeAll(
    async () => {
      const started = Date.now();
      for (const spec of HARD_SPECS) {
        const shot = await hardShot(spec);
        hardShots.set(shot.name, shot);
      }
      server = await ImageSourceServer.start();
      for (const { product, backdrop } of [
        ...PLAIN_SHOTS,
        ...OTHER_SHOTS.map(([product, backdrop]) => ({ product, backdrop })),
      ]) {
        if (shots.has(`${product}-on-${backdrop}`)) continue;
        const shot = await productShot(product, backdrop);
        shots.set(shot.name, shot);
        server.serve(`/${shot.name}.jpg`, shot.jpeg, { contentType: 'image/jpeg' });
      }
      for (const shot of hardShots.values())
        server.serve(`/${shot.name}.jpg`, shot.jpeg, { contentType: 'image/jpeg' });
      process.stdout.write(
        `\nquality set '${SET}': ${plainNames.length} plain shots and ${hardShots.size} hard ones scored, ` +
          `${shots.size + hardShots.size} drawn in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
      t = await localModelApp();
      account = await seedAccount(t, { credits: 1000 });
    },
    // Drawing the full sets alone took 221 s on a busy 2-core machine; the subset's 33 shots a quarter of that.
    SET === 'full' ? 1_200_000 : 300_000,
  );
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  const jobs = () => jobsClient(t, () => account.liveKey, 240_000);
  const create = (path: string, body: object) => jobs().create(path, body);
  const results = (jobId: string, timeoutMs?: number): Promise<ResultBody[]> => jobs().results(jobId, timeoutMs);
  const download = (url: string) => jobs().bytes(url);
  const shot = (name: string) => shots.get(name) as ProductShot;
  /** One remove-background result of `name` with `options`, decoded. */
  const cutOut = async (name: string, options: object = {}): Promise<Decoded> => {
    const res = await create('/remove-background', {
      input: [{ image_url: server.url(`/${name}.jpg`) }],
      ...options,
    }).expect(202);
    const [result] = await results(res.body.job.id);
    expect(result).toMatchObject({ status: 'completed', error_code: null });
    return decodeRgba(await download(result.result_url as string));
  };

  it(
    'is ready only once the model session is warm, and ' + 'offers the tools that need only the model to live keys',
    async () => {
      const readiness = async () => {
        const ready = await t.http().get('/health/ready');
        if (ready.status !== 200) expect(ready.body.checks.segmenter).toBe('starting');
        return ready;
      };
      const ready = await readUntil(readiness, (answer) => answer.status === 200, 'the segmenter to warm up', {
        timeoutMs: 120_000,
        intervalMs: 250,
      });
      expect(ready.body).toMatchObject({ status: 'ok', checks: { segmenter: 'up' } });
      const catalog = await t.http().get('/api/v1/tools').expect(200);
      const available = catalog.body.tools
        .filter((tool: { available: boolean }) => tool.available)
        .map((tool: { id: string }) => tool.id);
      // Ads lay the cut-out product out locally; the other generative tools need an image provider.
      expect(available.sort()).toEqual(['ad_creative', 'image_editing', 'remove_background']);
    },
    150_000,
  );

  /**
   * Every named shot cut out in jobs of 20 with each input's `subject_hints`, scored against its mask, with its
   * uncertainty.
   */
  const scoreShots = async (
    names: string[],
    truth: (name: string) => Uint8Array,
    hintsOf: (name: string) => object | undefined = () => undefined,
  ): Promise<Map<string, { iou: number; uncertainty: number }>> => {
    const scores = new Map<string, { iou: number; uncertainty: number }>();
    for (let first = 0; first < names.length; first += 20) {
      const batch = names.slice(first, first + 20);
      const res = await create('/remove-background', {
        input: batch.map((name) => ({
          image_url: server.url(`/${name}.jpg`),
          external_id: name,
          subject_hints: hintsOf(name),
        })),
      }).expect(202);
      for (const result of await results(res.body.job.id, 600_000)) {
        expect(result).toMatchObject({ status: 'completed', error_code: null });
        const output = await decodeRgba(await download(result.result_url as string));
        scores.set(result.external_id, {
          iou: alphaIoU(alphaOf(output), truth(result.external_id)),
          uncertainty: result.uncertainty as number,
        });
      }
    }
    return scores;
  };

  const hard = (name: string) => hardShots.get(name) as HardShot;
  const propShots = () => [...hardShots.values()].filter((shot) => shot.propFamily !== null).map((shot) => shot.name);
  /**
   * The product's box with a margin of 2% of each side, as fractions: what a client that knows where its product is
   * sends.
   */
  const regionAround = (shot: ProductShot) => {
    const { left, top, right, bottom } = boundsOf(shot.mask, shot.width);
    const clamp = (value: number) => Math.min(1, Math.max(0, value));
    return {
      left: clamp(left / shot.width - 0.02),
      top: clamp(top / shot.height - 0.02),
      right: clamp((right + 1) / shot.width + 0.02),
      bottom: clamp((bottom + 1) / shot.height + 0.02),
    };
  };
  /** A point on the product: its mask pixel nearest the mask's centroid. */
  const pointOn = (shot: ProductShot) => {
    let sx = 0;
    let sy = 0;
    let count = 0;
    shot.mask.forEach((value, i) => {
      if (!value) return;
      sx += i % shot.width;
      sy += Math.floor(i / shot.width);
      count++;
    });
    let best = 0;
    let nearest = Infinity;
    shot.mask.forEach((value, i) => {
      const d = ((i % shot.width) - sx / count) ** 2 + (Math.floor(i / shot.width) - sy / count) ** 2;
      if (value && d < nearest) {
        nearest = d;
        best = i;
      }
    });
    return { x: ((best % shot.width) + 0.5) / shot.width, y: (Math.floor(best / shot.width) + 0.5) / shot.height };
  };

  let baseScores = new Map<string, { iou: number; uncertainty: number }>();
  it(`cuts the product shots out (QUALITY_SET ${SET}): mean alpha IoU >= 0.95, each over a floor`, async () => {
    baseScores = await scoreShots(plainNames, (name) => shot(name).mask);
    const table = [...baseScores]
      .map(
        ([name, { iou, uncertainty }]) => `${name.padEnd(28)} ${iou.toFixed(4)} uncertainty ${uncertainty.toFixed(3)}`,
      )
      .join('\n');
    const backdrops = groupTable([...baseScores].map(([name, { iou }]) => ({ group: shot(name).backdrop, iou })));
    const all = groupTable([...baseScores].map(([, { iou }]) => ({ group: 'all', iou })));
    process.stdout.write(`\nalpha IoU per shot (local segmenter):\n${table}\nper backdrop:\n${backdrops}\n${all}\n`);
    const values = [...baseScores.values()].map(({ iou }) => iou);
    expect(values).toHaveLength(plainNames.length);
    expect(mean(values)).toBeGreaterThanOrEqual(FLOORS.plainMean);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(FLOORS.plainWorst);
  }, 900_000);

  /**
   * The hard cases: props touching, overlapping and around the product, an off-centre product
   * beside a bigger prop, products filling the frame with light parts, white on white, thin parts.
   * Printed per shot, per kind and per prop family (tuned on, or held out from tuning). The floors
   * are what the selection reaches today on this set, so a change that loses ground fails; the
   * issue's bar (mean 0.97, worst 0.92) is not reached yet, see BENCHMARKS.md.
   */
  let hardScores = new Map<string, { iou: number; uncertainty: number }>();
  it('cuts the hard shots out, scored per kind and per prop family, and ranks them by its uncertainty', async () => {
    hardScores = await scoreShots([...hardShots.keys()], (name) => hard(name).mask);
    const rows = [...hardScores].map(([name, { iou, uncertainty }]) => ({ name, iou, uncertainty, shot: hard(name) }));
    const table = rows
      .map(({ name, iou, uncertainty }) => `${name.padEnd(40)} ${iou.toFixed(4)} uncertainty ${uncertainty.toFixed(3)}`)
      .join('\n');
    const kinds = groupTable([
      ...rows.map(({ iou, shot }) => ({ group: shot.kind, iou })),
      ...rows.map(({ iou }) => ({ group: 'all hard', iou })),
      ...[...baseScores.values(), ...rows].map(({ iou }) => ({ group: 'all, plain and hard', iou })),
    ]);
    const families = groupTable(
      rows
        .filter(({ shot }) => shot.propFamily)
        .map(({ iou, shot }) => ({
          group: `${shot.propFamily} (${HELD_OUT_PROP_FAMILIES.includes(shot.propFamily!) ? 'held out' : 'tuned on'})`,
          iou,
        })),
    );
    process.stdout.write(
      `\nhard shots, alpha IoU per shot:\n${table}\nper kind:\n${kinds}\nper prop family:\n${families}\n`,
    );
    const values = rows.map(({ iou }) => iou);
    expect(values).toHaveLength(HARD_SPECS.length);
    expect(mean(values)).toBeGreaterThanOrEqual(FLOORS.hardMean);
    for (const { uncertainty } of rows) expect(uncertainty).toBeGreaterThanOrEqual(0);
    // Unsure cut-outs are the bad ones: the score ranks with (1 - IoU) across the whole set, plain shots and hard ones,
    // and a review threshold that flags a quarter of the set catches the bad cut-outs. In the set's order, so that
    // its odd- and even-numbered halves are the ones BENCHMARKS.md reports.
    const all = [
      ...plainNames.map((name) => baseScores.get(name)),
      ...[...hardShots.keys()].map((name) => hardScores.get(name)),
    ].filter((score) => score !== undefined);
    expect(all).toHaveLength(plainNames.length + hardShots.size);
    const correlation = errorCorrelation(all);
    const review = reviewRecall(all);
    process.stdout.write(
      `\nuncertainty, QUALITY_SET ${SET}:\n${rankingSummary('all shots', all)}\n` +
        `${rankingSummary(
          'odd-numbered half',
          all.filter((_, i) => i % 2 === 1),
        )}\n` +
        `${rankingSummary(
          'even-numbered half',
          all.filter((_, i) => i % 2 === 0),
        )}\n` +
        `${rankingSummary('hard shots', rows)}\n`,
    );
    expect(correlation).toBeGreaterThanOrEqual(FLOORS.rankCorrelation);
    expect(review.flaggedShare).toBeLessThanOrEqual(0.25);
    expect(review.recall).toBeGreaterThanOrEqual(FLOORS.reviewRecall);
  }, 1_200_000);

  it('does better on the prop shots with a region around the product, and no worse with a keep point', async () => {
    // Touching and beside: a prop fused to the product, and a larger prop beside it, of every family.
    const names = propShots().filter((name) => ['touching', 'beside'].includes(hard(name).kind));
    const regionScores = await scoreShots(
      names,
      (name) => hard(name).mask,
      (name) => ({ region: regionAround(hard(name)) }),
    );
    const pointNames = names.filter((name) => hard(name).kind === 'touching');
    const pointScores = await scoreShots(
      pointNames,
      (name) => hard(name).mask,
      (name) => ({ keep_points: [pointOn(hard(name))] }),
    );
    const plain = (name: string) => (hardScores.get(name) as { iou: number }).iou;
    const table = names
      .map(
        (name) =>
          `${name.padEnd(40)} none ${plain(name).toFixed(4)} ` +
          `region ${(regionScores.get(name) as { iou: number }).iou.toFixed(4)}` +
          (pointScores.has(name) ? ` point ${(pointScores.get(name) as { iou: number }).iou.toFixed(4)}` : ''),
      )
      .join('\n');
    process.stdout.write(`\nprop shots with hints, alpha IoU:\n${table}\n`);
    const withRegion = names.map((name) => (regionScores.get(name) as { iou: number }).iou);
    // Nothing outside the region survives, and what crosses its edge is a prop.
    process.stdout.write(
      `region on ${names.length} prop shots: mean ${mean(withRegion).toFixed(4)} ` +
        `against ${mean(names.map(plain)).toFixed(4)} without\n`,
    );
    expect(mean(withRegion)).toBeGreaterThan(mean(names.map(plain)) + FLOORS.regionGain);
    const withPoint = pointNames.map((name) => (pointScores.get(name) as { iou: number }).iou);
    process.stdout.write(
      `keep points on ${pointNames.length} touching shots: mean ${mean(withPoint).toFixed(4)} ` +
        `against ${mean(pointNames.map(plain)).toFixed(4)} without\n`,
    );
    expect(mean(withPoint)).toBeGreaterThanOrEqual(mean(pointNames.map(plain)) - 0.005);
  }, 1_200_000);

  it('makes the background exactly what was asked: transparent, white, or a colour', async () => {
    const name = `${PRODUCTS[0]}-on-studio`;
    const { left, top, right, bottom } = boundsOf(shot(name).mask, shot(name).width);
    const centre = [Math.round((left + right) / 2), Math.round((top + bottom) / 2)] as const;

    const transparent = await cutOut(name);
    expect(border(transparent, 4).every((pixel) => pixel[3] === 0)).toBe(true);
    expect(transparent.pixel(...centre)[3]).toBe(255);

    const white = await cutOut(name, { background: { type: 'white' }, output: { format: 'png' } });
    expect(border(white, 4).every((pixel) => pixel.slice(0, 3).every((value) => value === 255))).toBe(true);

    const blue = await cutOut(name, { background: { type: 'color', color: '#2050c0' }, output: { format: 'png' } });
    expect(border(blue, 4).every(([r, g, b]) => r === 0x20 && g === 0x50 && b === 0xc0)).toBe(true);
    // The product itself is the same whatever the background.
    expect(blue.pixel(...centre).slice(0, 3)).toEqual(transparent.pixel(...centre).slice(0, 3));
  }, 300_000);

  it('crops to the subject with the margin asked, on every side', async () => {
    const name = `${PRODUCTS[1]}-on-tabletop`;
    const truth = boundsOf(shot(name).mask, shot(name).width);
    const width = truth.right - truth.left + 1;
    const height = truth.bottom - truth.top + 1;
    const margin = Math.round(Math.max(width, height) * 0.1);
    const cropped = await cutOut(name, { output: { crop_to_subject: true, margin_percent: 10 } });
    expect(Math.abs(cropped.width - (width + 2 * margin))).toBeLessThanOrEqual(6);
    expect(Math.abs(cropped.height - (height + 2 * margin))).toBeLessThanOrEqual(6);
    const inside = boundsOf(alphaOf(cropped), cropped.width);
    for (const gap of [inside.left, inside.top, cropped.width - 1 - inside.right, cropped.height - 1 - inside.bottom]) {
      expect(Math.abs(gap - margin)).toBeLessThanOrEqual(4);
    }
  }, 300_000);

  it('lays shadows under the product, never on it; variants move the natural shadow', async () => {
    const name = `${PRODUCTS[0]}-on-studio`;
    const truth = boundsOf(shot(name).mask, shot(name).width);
    const plain = await cutOut(name, { background: { type: 'white' }, output: { format: 'png' } });
    const soft = await cutOut(name, { background: { type: 'white', shadow: 'soft' }, output: { format: 'png' } });
    const centreX = Math.round((truth.left + truth.right) / 2);
    // Just under the base it is darker than the plain white; far above the product it is not.
    expect(soft.pixel(centreX, truth.bottom + 3)[0]).toBeLessThan(235);
    expect(soft.pixel(centreX, Math.max(0, truth.top - 40)).slice(0, 3)).toEqual([255, 255, 255]);
    // Inside the product (where the mask is solid) the shadow changes nothing.
    const mask = shot(name).mask;
    let differing = 0;
    let solid = 0;
    for (let y = truth.top; y <= truth.bottom; y += 3) {
      for (let x = truth.left; x <= truth.right; x += 3) {
        const around = [-6, 0, 6].every((dy) => [-6, 0, 6].every((dx) => mask[(y + dy) * soft.width + x + dx] === 255));
        if (!around) continue;
        solid++;
        if (Math.abs(soft.pixel(x, y)[0] - plain.pixel(x, y)[0]) > 2) differing++;
      }
    }
    expect(solid).toBeGreaterThan(100);
    expect(differing / solid).toBeLessThan(0.01);

    const res = await create('/remove-background', {
      input: [{ image_url: server.url(`/${name}.jpg`) }],
      background: { type: 'white', shadow: 'natural' },
      output: { format: 'png', number_of_images: 2 },
    }).expect(202);
    const variants = await Promise.all(
      (await results(res.body.job.id)).map(async (result) => decodeRgba(await download(result.result_url as string))),
    );
    const darkness = (image: Decoded, from: number, to: number) => {
      let sum = 0;
      for (let y = truth.top + Math.round((truth.bottom - truth.top) * 0.6); y <= truth.bottom; y++) {
        for (let x = from; x < to; x++) sum += 255 - image.pixel(x, y)[0];
      }
      return sum;
    };
    const rightOf = (image: Decoded) => darkness(image, truth.right + 2, Math.min(image.width, truth.right + 60));
    const leftOf = (image: Decoded) => darkness(image, Math.max(0, truth.left - 60), truth.left - 2);
    // The first variant's light throws the shadow to the right, the second's to the left.
    expect(rightOf(variants[0])).toBeGreaterThan(2 * leftOf(variants[0]));
    expect(leftOf(variants[1])).toBeGreaterThan(2 * rightOf(variants[1]));
  }, 300_000);

  it('refuses jpg with a transparent background before creating anything', async () => {
    const before = await writtenRows(t);
    const res = await create('/image/edit', {
      input: [{ image_url: server.url(`/${PRODUCTS[0]}-on-studio.jpg`) }],
      operations: { background: { type: 'transparent' } },
      output: { format: 'jpg' },
    }).expect(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(await writtenRows(t)).toEqual(before);
  });

  it(
    'composes background and shadow with the other image_editing ' +
      'operations: cut out, then resize and pad with the background',
    async () => {
      const name = `${PRODUCTS[2]}-on-gradient`;
      const res = await create('/image/edit', {
        input: [{ image_url: server.url(`/${name}.jpg`) }],
        operations: {
          background: { type: 'color', color: '#f0e0c0', shadow: 'soft' },
          resizing: { width: 800, height: 800, fit: 'contain' },
        },
        output: { format: 'png' },
      }).expect(202);
      const [result] = await results(res.body.job.id);
      expect(result.status).toBe('completed');
      const edited = await decodeRgba(await download(result.result_url as string));
      expect([edited.width, edited.height]).toEqual([800, 800]);
      // The padding above and below the 4:3 photo and its corners are all the chosen colour.
      expect(border(edited, 3).every(([r, g, b]) => r === 0xf0 && g === 0xe0 && b === 0xc0)).toBe(true);
      // The product is still there, at the centre, not the backdrop colour.
      const truth = boundsOf(shot(name).mask, shot(name).width);
      const scale = 800 / shot(name).width;
      const offset = (800 - shot(name).height * scale) / 2;
      const centre = edited.pixel(
        Math.round(((truth.left + truth.right) / 2) * scale),
        Math.round(((truth.top + truth.bottom) / 2) * scale + offset),
      );
      expect(Math.abs(centre[0] - 0xf0) + Math.abs(centre[1] - 0xe0) + Math.abs(centre[2] - 0xc0)).toBeGreaterThan(40);
    },
    300_000,
  );

  describe('product photos', () => {
    const enhance = async (body: object) => {
      const res = await create('/product-photo-jobs', body).expect(202);
      await waitForJob(t, res.body.job.id, undefined, 240_000);
      return (
        await t
          .http()
          .get(`/api/v1/product-image-enhancements/${res.body.job.id}`)
          .set(bearer(account.liveKey))
          .expect(200)
      ).body.enhancement as {
        credits_used: number;
        items: Array<{ credits_used: number; result_url: string; thumbnail_url: string; error_code: string | null }>;
      };
    };

    it(
      "studio_packshot: the preset's exact size, pure white borders, " +
        'the product centred with even margins and a shadow under it',
      async () => {
        const name = `${PRODUCTS[0]}-on-tabletop`;
        const enhancement = await enhance({
          images: [{ source_url: server.url(`/${name}.jpg`), external_id: 'sku-1' }],
          preset: 'etsy_listing_image',
        });
        const [item] = enhancement.items;
        expect(item).toMatchObject({ credits_used: 2, error_code: null });
        expect(await sharp(await download(item.thumbnail_url)).metadata()).toMatchObject({
          format: 'webp',
          width: 256,
        });
        const packshot = await decodeRgba(await download(item.result_url));
        expect([packshot.width, packshot.height]).toEqual([2700, 2025]);
        expect(border(packshot, 10).every((pixel) => pixel.slice(0, 3).every((value) => value >= 253))).toBe(true);
        const dark = Uint8Array.from({ length: packshot.width * packshot.height }, (_, i) =>
          packshot.data[i * 4] < 200 ? 255 : 0,
        );
        const product = boundsOf(dark, packshot.width);
        const [left, right] = [product.left, packshot.width - 1 - product.right];
        expect(Math.abs(left - right)).toBeLessThan(packshot.width * 0.04);
        expect((product.bottom - product.top + 1) / packshot.height).toBeGreaterThan(0.7);
      },
      300_000,
    );

    it('marketplace_clean: pure white RGB 255, the product filling about 85% of the frame, no props left', async () => {
      const name = `${PRODUCTS[3]}-on-clutter`;
      const enhancement = await enhance({
        images: [{ source_url: server.url(`/${name}.jpg`), external_id: 'sku-2' }],
        preset: 'amazon_main_image',
      });
      const clean = await decodeRgba(await download(enhancement.items[0].result_url));
      expect([clean.width, clean.height]).toEqual([2000, 2000]);
      const notWhite = Uint8Array.from({ length: clean.width * clean.height }, (_, i) =>
        clean.data[i * 4] < 250 || clean.data[i * 4 + 1] < 250 || clean.data[i * 4 + 2] < 250 ? 255 : 0,
      );
      // Everything that is not white is the product: one box, filling 85% of the frame along its tighter side.
      const product = boundsOf(notWhite, clean.width);
      const fill = Math.max(
        (product.right - product.left + 1) / clean.width,
        (product.bottom - product.top + 1) / clean.height,
      );
      expect(fill).toBeGreaterThan(0.82);
      expect(fill).toBeLessThan(0.88);
      expect(border(clean, 20).every((pixel) => pixel.slice(0, 3).every((value) => value === 255))).toBe(true);
    }, 300_000);

    it(
      'remove_background with the transparent cut-out preset: ' +
        'a PNG at the source size, transparent around the product',
      async () => {
        const name = `${PRODUCTS[4]}-on-similar`;
        const enhancement = await enhance({
          images: [{ source_url: server.url(`/${name}.jpg`), external_id: 'sku-3' }],
          preset: 'transparent_cutout',
        });
        expect(enhancement.items[0]).toMatchObject({ credits_used: 1, error_code: null });
        const cutout = await decodeRgba(await download(enhancement.items[0].result_url));
        expect([cutout.width, cutout.height]).toEqual([shot(name).width, shot(name).height]);
        expect(alphaIoU(alphaOf(cutout), shot(name).mask)).toBeGreaterThan(0.9);
      },
      300_000,
    );

    it('settles credits per item: every completed result captured, the ledger summing to the balance', async () => {
      const totals = await creditTotals(t, account.accountId);
      expect(totals.ledgerSum).toBe(totals.balance);
    });
  });
});
