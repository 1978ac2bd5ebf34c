/**
 * How well the cut-out's uncertainty finds the bad cut-outs, on the full quality set (every shot
 * of test/support/product-shots/quality-sets.ts): per shot its IoU and uncertainty, then the rank
 * correlation of uncertainty with (1 - IoU) and the review threshold's recall, over the whole set
 * and over its odd- and even-numbered halves (the halves the weights were set and checked on).
 * The worker's own steps: one ISNet session, then the engine's subject mask at the photo's size.
 *
 *   npm run bench:uncertainty
 *
 * BENCH_UNCERTAINTY_CACHE=<dir> keeps each shot's model output there, so that a second run, after
 * a change to the post-processing, skips the model (about 2.5 s a shot) and takes a minute or two.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { maskFromProbability } from '../src/engine/mask/cutout-mask';
import type { RawImage } from '../src/engine/raw-image';
import { prepareIsnetModel } from '../src/core/segmentation/isnet-model';
import { ModelSession } from '../src/core/segmentation/model-session';
import { shippedModelManifest } from '../src/core/segmentation/segmentation-models';
import type { ProbabilityMap } from '../src/engine/mask/probability-map';
import { alphaIoU, hardShot, productShot } from '../test/support/product-shots';
import { hardQualitySpecs, plainQualityShots } from '../test/support/product-shots/quality-sets';
import { TEST_MODELS_DIR } from '../test/support/test-app';
import { rankingSummary, type RankedCutout } from '../test/support/uncertainty-ranking';

const INPUT_SIZE = Number(process.env.SEGMENTATION_INPUT_SIZE ?? 768);
const CACHE = process.env.BENCH_UNCERTAINTY_CACHE;

interface Shot {
  name: string;
  jpeg: Buffer;
  mask: Uint8Array;
}

/** The full set in the quality run's order: plain shots, then hard ones. */
function fullSet(): Array<() => Promise<Shot>> {
  return [
    ...plainQualityShots('full').map(
      ({ product, backdrop }) =>
        () =>
          productShot(product, backdrop),
    ),
    ...hardQualitySpecs('full').map((spec) => () => hardShot(spec)),
  ];
}

/** The model's map and its view of the photo, from the cache when it has them. */
async function modelOutput(
  session: () => Promise<ModelSession>,
  name: string,
  photo: RawImage,
): Promise<{ map: ProbabilityMap; pixels: Buffer }> {
  const dir = CACHE ? join(CACHE, name) : null;
  if (dir && existsSync(join(dir, 'pixels.rgb'))) {
    const raw = readFileSync(join(dir, 'map.f32'));
    const data = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    return { map: { data, width: INPUT_SIZE, height: INPUT_SIZE }, pixels: readFileSync(join(dir, 'pixels.rgb')) };
  }
  const { map, pixels } = await (await session()).probability(photo);
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'map.f32'), new Uint8Array(map.data.buffer, map.data.byteOffset, map.data.byteLength));
    writeFileSync(join(dir, 'pixels.rgb'), pixels);
  }
  return { map, pixels };
}

async function main(): Promise<void> {
  sharp.concurrency(1);
  // Opened on the first shot the cache does not hold.
  let opened = null as Promise<ModelSession> | null;
  const session = () =>
    (opened ??= prepareIsnetModel({ modelsDir: TEST_MODELS_DIR, inputSize: INPUT_SIZE }).then((model) =>
      ModelSession.open(shippedModelManifest(INPUT_SIZE), model.path, { intraOpThreads: 2, provider: 'cpu' }),
    ));
  const scored: RankedCutout[] = [];
  for (const draw of fullSet()) {
    const shot = await draw();
    const { data, info } = await sharp(shot.jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const photo: RawImage = { data, width: info.width, height: info.height, channels: 3 };
    const { map, pixels } = await modelOutput(session, shot.name, photo);
    const { mask, uncertainty } = await maskFromProbability(map, pixels, photo);
    const iou = alphaIoU(mask.data, shot.mask);
    scored.push({ iou, uncertainty });
    process.stdout.write(`${shot.name.padEnd(40)} IoU ${iou.toFixed(4)} uncertainty ${uncertainty.toFixed(3)}\n`);
  }
  await (await opened)?.release();
  process.stdout.write(
    [
      rankingSummary('full set', scored),
      rankingSummary(
        'odd-numbered half',
        scored.filter((_, i) => i % 2 === 1),
      ),
      rankingSummary(
        'even-numbered half',
        scored.filter((_, i) => i % 2 === 0),
      ),
    ].join('\n') + '\n',
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
