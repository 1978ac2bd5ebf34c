/**
 * Background removal's quality, model against model, without the API: the default model (the
 * shipped ISNet at SEGMENTATION_INPUT_SIZE) and the model of QUALITY_MODEL (a manifest) cut the
 * same photos out through LocalSegmenter and the mask pipeline, and each photo's mask is scored
 * against its true mask. Printed per photo and overall, side by side: IoU (mean, worst), a
 * boundary F-measure, milliseconds per megapixel, and the uncertainty's Spearman rank correlation
 * with (1 - IoU), which says whether a result's uncertainty points at its bad cut-outs.
 *
 *   npm run bench:quality                                   # the default model on the built-in ci set
 *   QUALITY_MODEL=/models/birefnet.json QUALITY_SET=full npm run bench:quality
 *   QUALITY_MODEL=... QUALITY_PHOTOS=/photos npm run bench:quality   # name.jpg|png|webp + name.mask.png
 *
 * MODELS_DIR (default: the specs' shared folder), SEGMENTATION_INPUT_SIZE (768),
 * SEGMENTATION_THREADS (2) and SEGMENTATION_PROVIDERS (cpu) as for a worker.
 * `npm run bench:quality:api` scores the default model through the API and a worker instead.
 */
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { INLINE_ENGINE } from '../src/engine/pixel-engine';
import { distanceFromSeeds } from '../src/engine/mask/distance-transform';
import type { RawImage } from '../src/engine/raw-image';
import type { SegmentationMetrics } from '../src/core/metrics/segmentation.metrics';
import type { ProviderName } from '../src/core/segmentation/execution-providers';
import { LocalSegmenter } from '../src/core/segmentation/local-segmenter';
import { configuredModels } from '../src/core/segmentation/segmentation-models';
import { alphaIoU, hardShot, productShot } from '../test/support/product-shots';
import { hardQualitySpecs, plainQualityShots, qualitySet } from '../test/support/product-shots/quality-sets';

/** A photo to score: its pixels and its true mask (255 inside the subject), the same size. */
interface ScoredPhoto {
  name: string;
  /** Scored apart as well as in all: `plain` and `hard` for the built-in shots, `photos` for a folder. */
  group: string;
  image: RawImage;
  mask: Uint8Array;
}

interface Score {
  group: string;
  iou: number;
  boundaryF: number;
  msPerMegapixel: number;
  uncertainty: number;
}

const PHOTO_EXTENSIONS = ['.jpg', '.jpeg', '.png', '.webp'];

async function main(): Promise<void> {
  const env = process.env;
  const manifest = env.QUALITY_MODEL;
  const models = await configuredModels({
    SEGMENTER: 'local',
    SEGMENTER_MODEL: 'remote',
    SEGMENTATION_INPUT_SIZE: Number(env.SEGMENTATION_INPUT_SIZE ?? 768),
    SEGMENTATION_MODELS: manifest ? [manifest] : [],
    SEGMENTATION_DEFAULT_MODEL: 'isnet-general-use',
    WORKER_MODELS: [],
  });
  const segmenter = new LocalSegmenter(
    {
      modelsDir: env.MODELS_DIR ?? path.join(tmpdir(), 'imgjobs-test-models'),
      threads: Number(env.SEGMENTATION_THREADS ?? 2),
      providers: (env.SEGMENTATION_PROVIDERS ?? 'cpu').split(',') as ProviderName[],
    },
    models,
    { inferred: () => undefined } as unknown as SegmentationMetrics,
    INLINE_ENGINE,
  );
  const names = models.all.map(({ name }) => name);
  const photos = env.QUALITY_PHOTOS ? await folderPhotos(env.QUALITY_PHOTOS) : await builtInPhotos();
  log(`${photos.length} photos, models ${names.join(' and ')}`);
  await segmenter.ready();
  log(`${'photo'.padEnd(44)} ${names.map(() => 'IoU    bound. F ms/MP').join('   ')}`);

  const scores = new Map<string, Score[]>(names.map((name) => [name, []]));
  for (const photo of photos) {
    const row: string[] = [];
    for (const name of names) {
      const score = await scoreOne(segmenter, name, photo);
      scores.get(name)?.push(score);
      row.push(`${score.iou.toFixed(4)} ${score.boundaryF.toFixed(4)} ${score.msPerMegapixel.toFixed(0).padStart(5)}`);
    }
    log(`${photo.name.padEnd(44)} ${row.join('   ')}`);
  }
  await segmenter.onModuleDestroy();
  process.stdout.write(`\n${summary(models.all, scores)}\n`);
}

async function scoreOne(segmenter: LocalSegmenter, model: string, photo: ScoredPhoto): Promise<Score> {
  const started = performance.now();
  const { mask, uncertainty } = await segmenter.segment(photo.image, new AbortController().signal, undefined, model);
  const ms = performance.now() - started;
  const { width, height } = photo.image;
  return {
    group: photo.group,
    iou: alphaIoU(mask.data, photo.mask),
    boundaryF: boundaryF(mask.data, photo.mask, width, height),
    msPerMegapixel: ms / ((width * height) / 1e6),
    uncertainty,
  };
}

/** One line per model and group of photos (all of them first, then each group when there are several). */
function summary(models: readonly { name: string; inputSize: string | null }[], scores: Map<string, Score[]>): string {
  const lines = [
    `${'model'.padEnd(30)} ${'input'.padEnd(15)} ${'photos'.padEnd(10)}` +
      '  IoU mean  IoU worst  boundary F  ms/MP  rank corr.',
  ];
  for (const { name, inputSize } of models) {
    const rows = scores.get(name) ?? [];
    const groups = [...new Set(rows.map(({ group }) => group))];
    const parts =
      groups.length > 1
        ? [
            ['all', rows] as const,
            ...groups.map((group) => [group, rows.filter((row) => row.group === group)] as const),
          ]
        : [['all', rows] as const];
    for (const [group, scored] of parts) {
      const photos = `${group} ${scored.length}`;
      lines.push(`${name.padEnd(30)} ${(inputSize ?? '').padEnd(15)} ${photos.padEnd(10)} ${figures(scored)}`);
    }
  }
  return lines.join('\n');
}

function figures(rows: readonly Score[]): string {
  const ious = rows.map(({ iou }) => iou);
  const correlation = rankCorrelation(
    rows.map(({ uncertainty }) => uncertainty),
    ious.map((iou) => 1 - iou),
  );
  return [
    mean(ious).toFixed(4).padStart(9),
    Math.min(...ious)
      .toFixed(4)
      .padStart(10),
    mean(rows.map(({ boundaryF }) => boundaryF))
      .toFixed(4)
      .padStart(11),
    median(rows.map(({ msPerMegapixel }) => msPerMegapixel))
      .toFixed(0)
      .padStart(6),
    correlation.toFixed(3).padStart(11),
  ].join(' ');
}

/** The built-in quality shots of QUALITY_SET (ci by default, full for all 138): plain shots, then hard ones. */
async function builtInPhotos(): Promise<ScoredPhoto[]> {
  const set = qualitySet();
  const photos: ScoredPhoto[] = [];
  for (const { product, backdrop } of plainQualityShots(set)) {
    const { name, jpeg, mask } = await productShot(product, backdrop);
    photos.push({ name, group: 'plain', image: await decoded(jpeg), mask });
  }
  for (const spec of hardQualitySpecs(set)) {
    const { name, jpeg, mask } = await hardShot(spec);
    photos.push({ name, group: 'hard', image: await decoded(jpeg), mask });
  }
  return photos;
}

/** Every `name.jpg|jpeg|png|webp` in `dir` that has a `name.mask.png` beside it. */
async function folderPhotos(dir: string): Promise<ScoredPhoto[]> {
  const files = await readdir(dir);
  const photos: ScoredPhoto[] = [];
  for (const file of files.sort()) {
    const extension = path.extname(file).toLowerCase();
    const name = path.basename(file, path.extname(file));
    if (!PHOTO_EXTENSIONS.includes(extension) || name.endsWith('.mask') || !files.includes(`${name}.mask.png`))
      continue;
    const image = await decoded(await readFile(path.join(dir, file)));
    const mask = await sharp(path.join(dir, `${name}.mask.png`))
      .extractChannel(0)
      .resize(image.width, image.height, { fit: 'fill', kernel: 'nearest' })
      .raw()
      .toBuffer();
    photos.push({ name, group: 'photos', image, mask: new Uint8Array(mask.buffer, mask.byteOffset, mask.length) });
  }
  if (photos.length === 0) throw new Error(`QUALITY_PHOTOS ${dir} holds no photo with a .mask.png beside it`);
  return photos;
}

/** Oriented RGB pixels, as a worker decodes a source. */
async function decoded(bytes: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(bytes).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

/**
 * The boundary F-measure (as DAVIS scores contours): the share of each mask's boundary pixels
 * within a tolerance of the other's boundary, precision and recall combined. The tolerance is
 * 0.75 % of the image's diagonal, at least 1 px.
 */
function boundaryF(alpha: Uint8Array, truth: Uint8Array, width: number, height: number): number {
  const predicted = boundaryOf(alpha, width, height);
  const actual = boundaryOf(truth, width, height);
  const tolerance = Math.max(1, Math.round(0.0075 * Math.hypot(width, height)));
  const precision = matched(predicted, distanceFromSeeds(actual, width, height), tolerance);
  const recall = matched(actual, distanceFromSeeds(predicted, width, height), tolerance);
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

/** Pixels inside (>= 128) with a 4-neighbour outside or on the image's edge. */
function boundaryOf(mask: Uint8Array, width: number, height: number): Uint8Array {
  const edge = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (mask[i] < 128) continue;
      const outside =
        x === 0 ||
        y === 0 ||
        x === width - 1 ||
        y === height - 1 ||
        mask[i - 1] < 128 ||
        mask[i + 1] < 128 ||
        mask[i - width] < 128 ||
        mask[i + width] < 128;
      if (outside) edge[i] = 1;
    }
  }
  return edge;
}

/** The share of `boundary`'s pixels within `tolerance` of the other boundary (1 when there are none on either side). */
function matched(boundary: Uint8Array, distanceToOther: Float32Array, tolerance: number): number {
  let total = 0;
  let near = 0;
  for (let i = 0; i < boundary.length; i++) {
    if (!boundary[i]) continue;
    total++;
    if (distanceToOther[i] <= tolerance) near++;
  }
  return total === 0 ? 1 : near / total;
}

/** Spearman's rank correlation of two equally long lists (ties broken by order). */
function rankCorrelation(a: number[], b: number[]): number {
  const ranks = (values: number[]) => {
    const rank = new Array<number>(values.length);
    values
      .map((value, index) => [value, index])
      .sort((x, y) => x[0] - y[0])
      .forEach(([, index], position) => (rank[index] = position));
    return rank;
  };
  const [ra, rb] = [ranks(a), ranks(b)];
  const middle = (a.length - 1) / 2;
  let [covariance, va, vb] = [0, 0, 0];
  for (let i = 0; i < a.length; i++) {
    covariance += (ra[i] - middle) * (rb[i] - middle);
    va += (ra[i] - middle) ** 2;
    vb += (rb[i] - middle) ** 2;
  }
  return covariance / Math.sqrt(va * vb);
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
