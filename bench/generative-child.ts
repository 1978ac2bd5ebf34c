import { INLINE_ENGINE } from '../src/engine/pixel-engine';
/**
 * The generative part of `npm run bench:pipeline`, forked by bench/pipeline.ts so its peak RSS is
 * its own. What the worker itself does for `ad_creative` and `ai_background`, one result at a
 * time, with the product's mask known (the segmenter's time is part 5's) and no provider call:
 *
 * - ads: per platform, the cut-out as RGBA, layout, typesetting and painting (renderAd), then
 *   the result's JPEG and WebP thumbnail, as AdCreativeRunner does after segmentation;
 * - scenes: composeScene on a 1536 px canvas, the cut-out with its soft shadow placed on the
 *   floor line, over (1) a provider's answer, with the PNGs the provider would be sent encoded
 *   and its 1536 x 1024 PNG answer decoded and fitted (only the provider's own time is left
 *   out), and (2) a built-in studio backdrop; then the JPEG and thumbnail.
 *
 * Its task comes as JSON in BENCH_GENERATIVE_TASK; it answers with one IPC message.
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { parseAspectRatio } from '../src/core/image/aspect-ratio';
import { composite } from '../src/engine/compose/composite';
import { renderStudioBackdrop, studioBackdropFor } from '../src/engine/compose/studio-backdrop';
import { encode, encodeThumbnail } from '../src/core/image/pipeline-steps';
import type { RawImage } from '../src/engine/raw-image';
import { AD_PLATFORMS, type AdPlatform } from '../src/engine/ad/ad-platforms';
import { renderAd } from '../src/engine/ad/ad-renderer';
import { AD_STYLES } from '../src/engine/ad/ad-styles';
import { shadowStyle } from '../src/modules/tools/shared/cutout-style';
import { exactCanvas } from '../src/modules/tools/generative/generative-request';
import { coverTo, keepMaskPng, providerPng } from '../src/core/image/provider-images';
import { composeScene, type BackdropPainter } from '../src/modules/tools/generative/scene-pipeline';
import { productShot } from '../test/support/product-shots';
import { reportToParent } from './child-report';

export interface GenerativeTask {
  adsPerPlatform: number;
  scenesPerBackdrop: number;
  warmup: number;
}

export interface GenerativeReport {
  photo: { width: number; height: number };
  ads: Array<{ platform: AdPlatform; width: number; height: number; ms: number[] }>;
  scenes: Array<{ backdrop: 'provider' | 'studio'; ratio: string; width: number; height: number; ms: number[] }>;
  baselineRssMb: number;
  peakRssMb: number;
}

const HEADLINE = 'Ultra-light trail running shoes built for all mountain paths';
const SCENE_RATIOS = ['1:1', '3:2'] as const;
const LIMITS = {
  maxPixels: 50_000_000,
  timeoutSeconds: 120,
  engine: INLINE_ENGINE,
  signal: new AbortController().signal,
};
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

async function timed(runs: number, warmup: number, work: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await work(i);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work(i);
    ms.push(performance.now() - start);
  }
  return ms;
}

async function finish(image: RawImage): Promise<void> {
  await Promise.all([
    encode(image, { format: 'jpg', quality: null, dpi: null, carried: null }, null),
    encodeThumbnail(image, 'jpg', null),
  ]);
}

async function main(): Promise<GenerativeReport> {
  const task = JSON.parse(process.env.BENCH_GENERATIVE_TASK ?? 'null') as GenerativeTask | null;
  if (!task || !process.send) throw new Error('bench/generative-child.ts is forked by bench/pipeline.ts');
  const shot = await productShot('sneaker', 'tabletop');
  const { data, info } = await sharp(shot.jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const photo: RawImage = { data, width: info.width, height: info.height, channels: 3 };
  const alpha = { data: shot.mask, width: shot.width, height: shot.height };
  // What the provider answers for a scene: a 1536 x 1024 PNG, decoded and fitted by us.
  const providerAnswer = await sharp({
    create: {
      width: 1536,
      height: 1024,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  const baselineRssMb = peakRssMb();

  const ads: GenerativeReport['ads'] = [];
  for (const platform of AD_PLATFORMS) {
    let size = { width: 0, height: 0 };
    const ms = await timed(task.adsPerPlatform, task.warmup, async (i) => {
      const rgba = await sharp(photo.data, { raw: { width: photo.width, height: photo.height, channels: 3 } })
        .joinChannel(Buffer.from(alpha.data), { raw: { width: alpha.width, height: alpha.height, channels: 1 } })
        .raw()
        .toBuffer();
      const ad = await renderAd({
        subject: { rgba, width: photo.width, height: photo.height },
        platform,
        goal: 'consideration',
        style: AD_STYLES[i % AD_STYLES.length],
        headline: HEADLINE,
        callToAction: 'Shop now',
        brandColor: '#7C3AED',
        variant: i % 3,
      });
      size = { width: ad.width, height: ad.height };
      const raw = await sharp(ad.image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      await finish({ data: raw.data, width: raw.info.width, height: raw.info.height, channels: 3 });
    });
    ads.push({ platform, ...size, ms });
  }

  const scenes: GenerativeReport['scenes'] = [];
  const fromProvider: BackdropPainter = async (placed, size) => {
    // What the provider painter encodes to send (the product alone and the mask) and what it decodes.
    await Promise.all([providerPng(composite({ ...placed, shadow: null }, null)), keepMaskPng(placed.alpha)]);
    return coverTo(providerAnswer, size);
  };
  for (const ratio of SCENE_RATIOS) {
    const canvas = exactCanvas(parseAspectRatio(ratio)!, 1536);
    for (const backdrop of ['provider', 'studio'] as const) {
      const ms = await timed(task.scenesPerBackdrop, task.warmup, async (i) => {
        const studio = backdrop === 'studio' ? studioBackdropFor(i) : null;
        const painter: BackdropPainter = studio ? (_placed, size) => renderStudioBackdrop(studio, size) : fromProvider;
        const plan = {
          canvas,
          shadow: shadowStyle('soft', i % 2),
          floorLine: studio?.floorLine ?? 0.86,
          variant: i % 2,
        };
        await finish(await composeScene(photo, alpha, plan, painter, LIMITS));
      });
      scenes.push({ backdrop, ratio, ...canvas, ms });
    }
  }

  const report: GenerativeReport = {
    photo: { width: photo.width, height: photo.height },
    ads,
    scenes,
    baselineRssMb,
    peakRssMb: peakRssMb(),
  };
  return report;
}

reportToParent(module, main);
