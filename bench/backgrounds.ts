/**
 * The compositions' own pixel work, in one process, per result: a cut-out over its blurred
 * background (gaussian and bokeh at three strengths), over a background photo, and placed on a
 * canvas (the exact resampler), each against the plain cut-out on a colour, on a 3 MP and a 24 MP
 * photo (a cut-out's largest is 25 MP). Median of BENCH_ROUNDS (3) runs after one warm-up; peak RSS.
 *
 *   npm run bench:backgrounds
 */
import { cutoutPixels, type CutoutComposition } from '../src/engine/cutout-pixels';
import type { RawImage } from '../src/engine/raw-image';
import type { AlphaMask } from '../src/engine/mask/alpha-mask';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = [
  { width: 2000, height: 1500 },
  { width: 6000, height: 4000 },
];

/** A textured photo with a soft-edged ellipse for the product, and its mask. */
function scene({ width, height }: { width: number; height: number }): { photo: RawImage; alpha: AlphaMask } {
  const data = Buffer.alloc(width * height * 3);
  const mask = new Uint8Array(width * height);
  const edge = Math.max(2, width / 500);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const distance = Math.hypot((x - width / 2) / (width / 5), (y - height / 2) / (height / 4)) - 1;
      const a = Math.min(1, Math.max(0, 0.5 - (distance * Math.min(width / 5, height / 4)) / edge));
      mask[i] = Math.round(a * 255);
      const grain = (x * 7 + y * 13) % 29;
      data[i * 3] = 120 + grain + a * 90;
      data[i * 3 + 1] = 130 + grain - a * 80;
      data[i * 3 + 2] = 140 - grain - a * 90;
    }
  }
  return { photo: { data, width, height, channels: 3 }, alpha: { data: mask, width, height } };
}

const PLAIN: CutoutComposition = {
  channels: 'rgba',
  light: false,
  color: false,
  polish: false,
  ownEdgeColours: false,
  background: { r: 255, g: 255, b: 255, alpha: 1 },
  backdrop: null,
  shadow: { kind: 'soft', spread: 1, lean: 0.6 },
  placement: { kind: 'source' },
};

function cases(size: { width: number; height: number }): Array<[string, CutoutComposition]> {
  const backdropPhoto = scene({ width: Math.round(size.width * 1.2), height: Math.round(size.height * 1.2) }).photo;
  const pad = { r: 255, g: 255, b: 255, alpha: 1 };
  return [
    ['plain cut-out on white', PLAIN],
    ...[5, 50, 100].flatMap((strength): Array<[string, CutoutComposition]> => [
      [`gaussian blur ${strength}`, { ...PLAIN, backdrop: { kind: 'blur', blur: { mode: 'gaussian', strength } } }],
      [`bokeh blur ${strength}`, { ...PLAIN, backdrop: { kind: 'blur', blur: { mode: 'bokeh', strength } } }],
    ]),
    ['background photo (cover)', { ...PLAIN, backdrop: { kind: 'photo', image: backdropPhoto, fit: 'cover', pad } }],
    [
      'placed on a 2000 x 2000 canvas',
      {
        ...PLAIN,
        placement: {
          kind: 'layout',
          size: { width: 2000, height: 2000 },
          padding: { top: { percent: 5 }, right: { percent: 5 }, bottom: { percent: 5 }, left: { percent: 5 } },
          horizontal: 'center',
          vertical: 'bottom',
          scale: { kind: 'fit' },
          shadowInBox: false,
        },
      },
    ],
  ];
}

async function timed(photo: RawImage, alpha: AlphaMask, composition: CutoutComposition): Promise<number> {
  const copy = { ...photo, data: Buffer.from(photo.data) };
  const started = performance.now();
  await cutoutPixels(copy, alpha, composition, 300);
  return performance.now() - started;
}

async function main(): Promise<void> {
  let peak = 0;
  for (const size of SIZES) {
    const { photo, alpha } = scene(size);
    const megapixels = ((size.width * size.height) / 1e6).toFixed(0);
    for (const [name, composition] of cases(size)) {
      await timed(photo, alpha, composition);
      const runs: number[] = [];
      for (let round = 0; round < ROUNDS; round++) runs.push(await timed(photo, alpha, composition));
      runs.sort((a, b) => a - b);
      peak = Math.max(peak, process.memoryUsage().rss);
      console.log(`${megapixels} MP  ${name.padEnd(32)} median ${Math.round(runs[Math.floor(runs.length / 2)])} ms`);
    }
  }
  console.log(`peak RSS ${Math.round(peak / 1e6)} MB`);
}

void main();
