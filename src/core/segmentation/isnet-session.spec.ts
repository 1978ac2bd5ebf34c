import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import sharp from 'sharp';
import { fromRaw, toRaw, type RawImage } from '../../engine/raw-image';
import { prepareIsnetModel, type PreparedModel } from './isnet-model';
import { ModelSession } from './model-session';
import type { ProbabilityMap } from '../../engine/mask/probability-map';
import { shippedModelManifest } from './segmentation-models';

/** Shared by every test file that needs the model: preparation is atomic, so parallel files are safe. */
const MODELS_DIR = path.join(os.tmpdir(), 'imgjobs-test-models');
const INPUT_SIZE = 768;
/** Preparing the model (when not cached yet) and opening a session take a few seconds each on a busy CPU. */
const SLOW = 60_000;

/** A dark, shaded, rounded bottle centred on a light grey, slightly noisy backdrop. */
const SHOT = { width: 480, height: 400 };
const BOTTLE = { left: 170, top: 60, width: 140, height: 280, radius: 50 };

function insideBottle(x: number, y: number): boolean {
  const { left, top, width, height, radius } = BOTTLE;
  if (x < left || x > left + width || y < top || y > top + height) return false;
  const nearestX = Math.min(Math.max(x, left + radius), left + width - radius);
  const nearestY = Math.min(Math.max(y, top + radius), top + height - radius);
  return (x - nearestX) ** 2 + (y - nearestY) ** 2 <= radius ** 2;
}

async function bottleShot(): Promise<RawImage> {
  const { left, top, width, height, radius } = BOTTLE;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SHOT.width}" height="${SHOT.height}">
    <defs><radialGradient id="shade" cx="0.35" cy="0.35" r="0.8">
      <stop offset="0" stop-color="#5a4a3a"/><stop offset="1" stop-color="#1a120c"/>
    </radialGradient></defs>
    <rect width="100%" height="100%" fill="#d8d8d8"/>
    <rect x="${left}" y="${top}" width="${width}" height="${height}" rx="${radius}" fill="url(#shade)"/>
  </svg>`;
  const data = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
  // Seeded noise, so every run sees the same pixels.
  let seed = 12345;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    data[i] = Math.min(255, Math.max(0, data[i] + ((seed >>> 24) % 17) - 8));
  }
  return { data, width: SHOT.width, height: SHOT.height, channels: 3 };
}

function probabilityAt(map: ProbabilityMap, shotX: number, shotY: number): number {
  const x = Math.floor((shotX / SHOT.width) * map.width);
  const y = Math.floor((shotY / SHOT.height) * map.height);
  return map.data[y * map.width + x];
}

/** IoU at threshold 0.5 against the drawn bottle, each map pixel's centre mapped back onto the shot. */
function iouWithBottle(map: ProbabilityMap): number {
  let intersection = 0;
  let union = 0;
  for (let y = 0; y < map.height; y++) {
    for (let x = 0; x < map.width; x++) {
      const predicted = map.data[y * map.width + x] > 0.5;
      const actual = insideBottle(((x + 0.5) / map.width) * SHOT.width, ((y + 0.5) / map.height) * SHOT.height);
      if (predicted && actual) intersection++;
      if (predicted || actual) union++;
    }
  }
  return intersection / union;
}

async function sha256OfFile(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

describe(prepareIsnetModel.name, () => {
  let prepared: PreparedModel;

  beforeAll(async () => {
    prepared = await prepareIsnetModel({ modelsDir: MODELS_DIR, inputSize: INPUT_SIZE });
  }, SLOW);

  it('names the model after its input size and source, and records its hash in a sidecar', async () => {
    expect(path.basename(prepared.path)).toMatch(/^isnet-general-768-[0-9a-f]{12}-v\d+\.onnx$/);
    expect((await readFile(`${prepared.path}.sha256`, 'utf8')).trim()).toBe(prepared.sha256);
  });

  it('names the weights it holds as cut-outs report them: the model and the pinned data package', () => {
    expect({ name: prepared.name, weights: prepared.weights }).toEqual({
      name: 'isnet-general-use',
      weights: '@imgly/background-removal-data@1.4.5',
    });
  });

  it(
    'reuses a prepared model without writing it again',
    async () => {
      const before = await stat(prepared.path);
      const again = await prepareIsnetModel({ modelsDir: MODELS_DIR, inputSize: INPUT_SIZE });
      expect(again).toEqual(prepared);
      expect((await stat(prepared.path)).mtimeMs).toBe(before.mtimeMs);
    },
    SLOW,
  );

  it(
    'rebuilds a prepared model that no longer matches its sidecar',
    async () => {
      // A private copy, so corrupting it cannot disturb other test files using the shared folder.
      const modelsDir = await mkdtemp(path.join(os.tmpdir(), 'isnet-corrupt-'));
      try {
        const copy = path.join(modelsDir, path.basename(prepared.path));
        await copyFile(prepared.path, copy);
        await copyFile(`${prepared.path}.sha256`, `${copy}.sha256`);
        const file = await open(copy, 'r+');
        await file.write(Buffer.from('not a model'), 0, 11, 1_000_000);
        await file.close();

        const rebuilt = await prepareIsnetModel({ modelsDir, inputSize: INPUT_SIZE });

        expect(rebuilt).toEqual({ ...prepared, path: copy });
        expect(await sha256OfFile(copy)).toBe(prepared.sha256);
      } finally {
        await rm(modelsDir, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it('refuses an input size that is not a multiple of 32', async () => {
    await expect(prepareIsnetModel({ modelsDir: MODELS_DIR, inputSize: 770 })).rejects.toThrow(/multiple of 32/);
  });
});

describe('the shipped ISNet through its built-in manifest', () => {
  let model: PreparedModel;
  let session: ModelSession;

  beforeAll(async () => {
    model = await prepareIsnetModel({ modelsDir: MODELS_DIR, inputSize: INPUT_SIZE });
    session = await ModelSession.open(shippedModelManifest(INPUT_SIZE), model.path, {
      intraOpThreads: 2,
      provider: 'cpu',
    });
  }, SLOW);

  afterAll(async () => {
    await session?.release();
  });

  it(
    'finds the bottle and not the backdrop',
    async () => {
      const { map, timings } = await session.probability(await bottleShot());

      expect(map).toMatchObject({ width: INPUT_SIZE, height: INPUT_SIZE });
      expect(map.data).toHaveLength(INPUT_SIZE * INPUT_SIZE);
      expect(probabilityAt(map, BOTTLE.left + BOTTLE.width / 2, BOTTLE.top + BOTTLE.height / 2)).toBeGreaterThan(0.8);
      for (const [x, y] of [
        [2, 2],
        [SHOT.width - 3, 2],
        [2, SHOT.height - 3],
        [SHOT.width - 3, SHOT.height - 3],
      ]) {
        expect(probabilityAt(map, x, y)).toBeLessThan(0.2);
      }
      expect(iouWithBottle(map)).toBeGreaterThan(0.9);
      expect(Math.min(...Object.values(timings))).toBeGreaterThanOrEqual(0);
      expect(timings.inferenceMs).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    'answers exactly the map of the constants before manifests (RGB Lanczos, /max, mean 0.5, std 1, stretch)',
    async () => {
      const shot = await bottleShot();
      const reference = await referenceMap(model.path, shot);
      const { map, pixels } = await session.probability(shot);
      expect(map.data).toEqual(reference.map);
      expect(pixels.equals(reference.pixels)).toBe(true);
    },
    SLOW,
  );
});

/** The shipped model's map computed as the code before manifests did, with its constants written out. */
async function referenceMap(modelPath: string, image: RawImage): Promise<{ map: Float32Array; pixels: Buffer }> {
  const pixels = (await toRaw(fromRaw(image).resize(INPUT_SIZE, INPUT_SIZE, { fit: 'fill' }))).data;
  const scale =
    1 /
    Math.max(
      pixels.reduce((brightest, value) => Math.max(brightest, value), 0),
      1,
    );
  const plane = INPUT_SIZE * INPUT_SIZE;
  const input = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++)
    for (let c = 0; c < 3; c++) input[c * plane + i] = (pixels[3 * i + c] * scale - 0.5) / 1;
  // The session options the code before manifests opened it with.
  const session = await InferenceSession.create(modelPath, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 2,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    enableCpuMemArena: false,
    executionMode: 'sequential',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  try {
    const outputs = await session.run({ input: new Tensor('float32', input, [1, 3, INPUT_SIZE, INPUT_SIZE]) });
    const output = outputs[session.outputNames[0]].data as Float32Array;
    const min = output.reduce((least, value) => Math.min(least, value), Infinity);
    const max = output.reduce((most, value) => Math.max(most, value), -Infinity);
    return { map: output.map((value) => (value - min) / (max - min)), pixels };
  } finally {
    await session.release();
  }
}
