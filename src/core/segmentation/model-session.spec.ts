import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeTinyModel, type TinyModelOptions } from '../../../test/support/tiny-onnx-model';
import type { RawImage } from '../../engine/raw-image';
import { readModelManifest } from './model-manifest';
import { ModelSession } from './model-session';

/** Two flat halves, so a resize with the nearest kernel keeps each half's exact colour. */
const LEFT: [number, number, number] = [200, 50, 10];
const RIGHT: [number, number, number] = [20, 100, 250];

function halves(width: number, height: number): RawImage {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(x < width / 2 ? LEFT : RIGHT, 3 * (y * width + x));
  }
  return { data, width, height, channels: 3 };
}

const sigmoid = (value: number) => 1 / (1 + Math.exp(-value));

describe(ModelSession.name, () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'model-session-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A session of the tiny graph (map = sigmoid(gain * first channel fed + bias)) under `input`/`output` fields. */
  async function sessionOf(
    graph: TinyModelOptions,
    input: Record<string, unknown>,
    output: Record<string, unknown> = {},
  ): Promise<ModelSession> {
    const { manifestPath, weightsPath } = await writeTinyModel(dir, graph, (weights) => ({
      name: 'tiny',
      ...weights,
      licence: 'test',
      input: {
        name: 'pixels',
        layout: 'nchw',
        size: 40,
        resize: 'nearest',
        colour_order: 'rgb',
        scaling: 'unit',
        mean: [0.2, 0.3, 0.4],
        std: [0.5, 0.6, 0.7],
        ...input,
      },
      output: { tensor: 'mask', type: 'float16', activation: 'sigmoid', min_max_stretch: false, ...output },
    }));
    return ModelSession.open(await readModelManifest(manifestPath), weightsPath, {
      intraOpThreads: 1,
      provider: 'cpu',
    });
  }

  async function mapOf(session: ModelSession, image: RawImage) {
    try {
      return await session.probability(image);
    } finally {
      await session.release();
    }
  }

  it('feeds the size, scaling, mean and std it is given, and decodes float16 logits with a sigmoid', async () => {
    const session = await sessionOf({ size: 40, gain: 3, bias: -0.5 }, {});
    const { map, pixels } = await mapOf(session, halves(80, 60));

    expect(map).toMatchObject({ width: 40, height: 40 });
    expect(pixels).toHaveLength(40 * 40 * 3);
    const expected = (red: number) => sigmoid(3 * ((red / 255 - 0.2) / 0.5) - 0.5);
    expect(map.data[40 * 20 + 5]).toBeCloseTo(expected(LEFT[0]), 2);
    expect(map.data[40 * 20 + 35]).toBeCloseTo(expected(RIGHT[0]), 2);
  });

  it('feeds BGR models the blue channel first, with the mean and std in the tensor’s order', async () => {
    const session = await sessionOf({ size: 40, gain: 1 }, { colour_order: 'bgr' });
    const { map } = await mapOf(session, halves(40, 40));
    expect(map.data[5]).toBeCloseTo(sigmoid((LEFT[2] / 255 - 0.2) / 0.5), 2);
    expect(map.data[35]).toBeCloseTo(sigmoid((RIGHT[2] / 255 - 0.2) / 0.5), 2);
  });

  it('lays NHWC models out channel last', async () => {
    const session = await sessionOf({ size: 40, layout: 'nhwc' }, { layout: 'nhwc' });
    const { map } = await mapOf(session, halves(40, 40));
    expect(map.data[5]).toBeCloseTo(sigmoid((LEFT[0] / 255 - 0.2) / 0.5), 2);
  });

  it('divides by the image’s brightest value when scaling is image_max', async () => {
    const session = await sessionOf({ size: 40 }, { scaling: 'image_max' });
    const { map } = await mapOf(session, halves(40, 40));
    // The brightest value in the image is RIGHT's blue, 250.
    expect(map.data[5]).toBeCloseTo(sigmoid((LEFT[0] / 250 - 0.2) / 0.5), 2);
  });

  it('stretches the map to 0..1 when the manifest says so', async () => {
    const session = await sessionOf({ size: 40, gain: 2 }, {}, { min_max_stretch: true });
    const { map } = await mapOf(session, halves(40, 40));
    expect([map.data[5], map.data[35]]).toEqual([1, 0]);
  });

  it('reads float32 outputs and leaves probabilities alone with activation none', async () => {
    const session = await sessionOf(
      { size: 40, outputType: 'float32', gain: 0.1, bias: 0.5 },
      {},
      { type: 'float32', activation: 'none' },
    );
    const { map } = await mapOf(session, halves(40, 40));
    expect(map.data[5]).toBeCloseTo(0.1 * ((LEFT[0] / 255 - 0.2) / 0.5) + 0.5, 5);
  });

  it('keeps the aspect ratio with a dynamic size: longer side at most max, sides rounded to the multiple', async () => {
    const session = await sessionOf({ size: 'dynamic' }, { size: { multiple: 16, max: 64 } });
    const { map, pixels } = await mapOf(session, halves(100, 50));
    expect(map).toMatchObject({ width: 64, height: 32 });
    expect(map.data).toHaveLength(64 * 32);
    expect(pixels).toHaveLength(64 * 32 * 3);
    expect(map.data[5]).toBeCloseTo(sigmoid((LEFT[0] / 255 - 0.2) / 0.5), 2);
    expect(map.data[60]).toBeCloseTo(sigmoid((RIGHT[0] / 255 - 0.2) / 0.5), 2);
  });
});
