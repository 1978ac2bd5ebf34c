import { createHash } from 'node:crypto';
import type { AlphaMask } from './mask/alpha-mask';
import type { RawImage } from './raw-image';
import type { ProbabilityMap } from './mask/probability-map';
import { AD_GOALS } from './ad/ad-layout';
import { AD_PLATFORMS } from './ad/ad-platforms';
import { AD_STYLES } from './ad/ad-styles';
import { ENGINE_OPERATIONS, type OperationArgs, type OperationName } from './operations';
import { INLINE_ENGINE } from './pixel-engine';
import { ThreadPoolEngine } from './thread-pool-engine';

/**
 * Every operation of the image engine gives the same pixels in the pool's threads as on the
 * calling thread, and the pool leaves the calling thread's event loop free while it works.
 */

const WIDTH = 240;
const HEIGHT = 180;
const DISC = { cx: 130, cy: 95, r: 55 };
const inDisc = (x: number, y: number) => Math.hypot(x + 0.5 - DISC.cx, y + 0.5 - DISC.cy) <= DISC.r;

/** A textured warm backdrop with a blue disc: noise for polish, a cast for colour, a subject for the mask. */
function photo(): RawImage {
  const data = Buffer.alloc(WIDTH * HEIGHT * 3);
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) % 17) - 8;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const colour = inDisc(x, y) ? [40, 70, 190] : [200, 170, 120 + (x % 30)];
      data.set(
        colour.map((value) => Math.max(0, Math.min(255, value + noise()))),
        (y * WIDTH + x) * 3,
      );
    }
  }
  return { data, width: WIDTH, height: HEIGHT, channels: 3 };
}

/** The disc's mask with a soft one-pixel edge. */
function alpha(): AlphaMask {
  const data = new Uint8Array(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const distance = Math.hypot(x + 0.5 - DISC.cx, y + 0.5 - DISC.cy) - DISC.r;
      data[y * WIDTH + x] = Math.round(255 * Math.max(0, Math.min(1, 0.5 - distance)));
    }
  }
  return { data, width: WIDTH, height: HEIGHT };
}

/** The photo with the disc's mask as its alpha: transparent around the subject. */
function rgba(): RawImage {
  const pixels = photo();
  const mask = alpha();
  const data = Buffer.alloc(WIDTH * HEIGHT * 4);
  for (let i = 0; i < WIDTH * HEIGHT; i++) {
    pixels.data.copy(data, i * 4, i * 3, i * 3 + 3);
    data[i * 4 + 3] = mask.data[i];
  }
  return { data, width: WIDTH, height: HEIGHT, channels: 4 };
}

/** What the model would see: the disc found with soft edges, on a 96 x 96 map of the squashed photo. */
function probability(): { map: ProbabilityMap; mapPhoto: Buffer } {
  const side = 96;
  const data = new Float32Array(side * side);
  const mapPhoto = Buffer.alloc(side * side * 3);
  const source = photo();
  for (let v = 0; v < side; v++) {
    for (let u = 0; u < side; u++) {
      const x = Math.floor(((u + 0.5) * WIDTH) / side);
      const y = Math.floor(((v + 0.5) * HEIGHT) / side);
      data[v * side + u] = inDisc(x, y) ? 0.97 : 0.02;
      source.data.copy(mapPhoto, (v * side + u) * 3, (y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3);
    }
  }
  return { map: { data, width: side, height: side }, mapPhoto };
}

const SOFT_SHADOW = { kind: 'soft', spread: 1, lean: 0 } as const;
const CORRECTIONS = {
  polish: true,
  tone: { light: true, color: true, brightnessOffset: 0, saturationOffset: 0 },
  sharpen: { sigma: 0.8, edgeGain: 1.5 },
};

/** Fresh arguments for each run: the pool's runs are given their pixels, so nothing is shared between runs. */
const CASES: { [Name in OperationName]: () => OperationArgs<Name> } = {
  subjectMask: () => {
    const { map, mapPhoto } = probability();
    return [map, mapPhoto, photo()];
  },
  existingCutout: () => [rgba()],
  cutoutPixels: () => [
    photo(),
    alpha(),
    {
      channels: 'rgba',
      backdrop: null,
      light: true,
      color: true,
      polish: true,
      background: { r: 255, g: 255, b: 255, alpha: 1 },
      shadow: SOFT_SHADOW,
      placement: { kind: 'crop', marginPercent: 10 },
    },
    60,
  ],
  productLayers: () => [photo(), alpha(), { light: true, color: false, polish: true, shadow: SOFT_SHADOW }, 60],
  correctedPixels: () => [photo(), CORRECTIONS, 60],
  interestingCrop: () => [photo(), { width: 120, height: 120 }, 1],
  replacedBackground: () => [
    photo(),
    alpha(),
    { background: { r: 20, g: 200, b: 90, alpha: 1 }, backdrop: null, shadow: SOFT_SHADOW },
  ],
  composite: () => [{ colour: photo(), alpha: alpha(), shadow: null }, null],
  compositeOnImage: () => [
    { colour: photo(), alpha: alpha(), shadow: null },
    { ...photo(), data: Buffer.alloc(WIDTH * HEIGHT * 3, 90) },
  ],
  preservedSubject: () => [
    { colour: photo(), alpha: alpha(), shadow: null },
    { ...photo(), data: Buffer.alloc(WIDTH * HEIGHT * 3, 160) },
    'balanced',
  ],
  colourUnderTransparency: () => [rgba(), [2, 8]],
  withAlpha: () => [photo(), Buffer.from(alpha().data)],
  carriedBlocks: () => [
    {
      exif: null,
      xmp: Buffer.from(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSAltitude="3"/>',
      ),
    },
  ],
  layOutAd: () => [
    {
      subject: { rgba: rgba().data, width: WIDTH, height: HEIGHT },
      platform: AD_PLATFORMS[0],
      goal: AD_GOALS[0],
      style: AD_STYLES[0],
      headline: 'Made to last',
      callToAction: 'Shop now',
      variant: 0,
    },
  ],
};

/**
 * Typed arrays as their length and a digest of their bytes, so results compare alike whatever
 * their class or realm (and an ad's millions of bytes compare as one string, not element by element).
 */
function comparable(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) {
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, comparable(item)]));
  return value;
}

/** Timers set one after another on the calling thread while the engine works (see `timersFiredDuring`). */
const TIMER_CHAIN = 5;

/**
 * Sets a chain of TIMER_CHAIN timers on this thread, each due 1 ms after the one before it fired,
 * starts `work`, and counts the timers that fired before the work resolved. A loop held by the
 * work fires none of them until it ends; a free loop fires them all while hundreds of
 * milliseconds of work run elsewhere. What is counted is the order of events, not their times.
 */
async function timersFiredDuring(work: () => Promise<unknown>): Promise<number> {
  let fired = 0;
  const chainEnded = new Promise<void>((resolve) => {
    const tick = () => {
      fired++;
      if (fired < TIMER_CHAIN) setTimeout(tick, 1);
      else resolve();
    };
    setTimeout(tick, 1);
  });
  await work();
  const firedBeforeWorkEnded = fired;
  await chainEnded; // no timer outlives the test
  return firedBeforeWorkEnded;
}

describe(ThreadPoolEngine.name, () => {
  const pool = new ThreadPoolEngine({ threads: 2, niceIncrement: 0 });
  afterAll(() => pool.close());

  it.each(Object.keys(CASES) as OperationName[])('%s gives the same pixels in the pool as directly', async (name) => {
    const makeArgs = CASES[name] as () => OperationArgs<typeof name>;
    const direct = await INLINE_ENGINE.run(name, makeArgs());
    const args = makeArgs();
    const pooled = await pool.run(name, args, args);
    expect(comparable(pooled)).toEqual(comparable(direct));
  });

  it('transfers the pixels it is given and gives back Buffers', async () => {
    const image = photo();
    const corrected = await pool.run('correctedPixels', [image, CORRECTIONS, 60], [image]);
    expect(image.data.length).toBe(0);
    expect(Buffer.isBuffer(corrected.data)).toBe(true);
    expect(corrected.data.length).toBe(WIDTH * HEIGHT * 3);
  });

  it('copies the pixels it is not given, which stay readable', async () => {
    const image = photo();
    const before = Buffer.from(image.data);
    await pool.run('correctedPixels', [image, CORRECTIONS, 60]);
    expect(image.data.equals(before)).toBe(true);
  });

  it("runs its operations in its threads, never on the caller's", async () => {
    // The pool's threads load the engine's operations for themselves: a spy on this thread's
    // table sees only what runs here.
    const onCallerThread = jest.spyOn(ENGINE_OPERATIONS, 'correctedPixels');
    try {
      const image = photo();
      const pooled = await pool.run('correctedPixels', [image, CORRECTIONS, 60], [image]);
      expect(pooled.data.length).toBe(WIDTH * HEIGHT * 3);
      expect(onCallerThread).not.toHaveBeenCalled();
      // The spy does see an operation run on this thread.
      await INLINE_ENGINE.run('correctedPixels', [photo(), CORRECTIONS, 60]);
      expect(onCallerThread).toHaveBeenCalledTimes(1);
    } finally {
      onCallerThread.mockRestore();
    }
  });

  it("keeps the caller's event loop free while its threads work: its timers fire in the meantime", async () => {
    // A noisy 3 MP photo: polish and tone do their full work on it (a flat one is passed over
    // quickly), hundreds of milliseconds of pixel loops. Without sharpening or saturation the
    // operation has no sharp step, so on the calling thread it is one stretch of JavaScript.
    const noisy = Buffer.alloc(2000 * 1500 * 3);
    for (let i = 0; i < noisy.length; i++) noisy[i] = 96 + ((i * 2654435761) >>> 27);
    const large = () => ({ data: Buffer.from(noisy), width: 2000, height: 1500, channels: 3 as const });
    const pixelLoopsOnly = { ...CORRECTIONS, tone: { ...CORRECTIONS.tone, color: false }, sharpen: null };
    await pool.run('correctedPixels', [photo(), CORRECTIONS, 60]); // threads started and warm

    const inline = await timersFiredDuring(() => INLINE_ENGINE.run('correctedPixels', [large(), pixelLoopsOnly, 60]));
    const image = large();
    const pooled = await timersFiredDuring(() => pool.run('correctedPixels', [image, pixelLoopsOnly, 60], [image]));
    // On the calling thread the loop is held until the work is done: no timer fires before it.
    expect(inline).toBe(0);
    // In the pool, the loop runs a chain of timers, each set by the one before, while the threads work.
    expect(pooled).toBe(TIMER_CHAIN);
  });

  it('refuses an operation it does not have, with its name', async () => {
    await expect(pool.run('noSuchOperation' as OperationName, [] as never)).rejects.toThrow('noSuchOperation');
  });
});
