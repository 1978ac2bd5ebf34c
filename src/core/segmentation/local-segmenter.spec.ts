import { Logger } from '@nestjs/common';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LIBVIPS_CHOSEN, libvipsState, withLibvipsThreads } from '../../../test/support/libvips-state';
import { writeTinyModel } from '../../../test/support/tiny-onnx-model';
import type { PixelEngine } from '../../engine/pixel-engine';
import type { SegmentationMetrics } from '../metrics/segmentation.metrics';
import { LocalSegmenter } from './local-segmenter';
import type { ProbabilityMap } from '../../engine/mask/probability-map';
import { configuredModels } from './segmentation-models';
import { SegmentationError } from './segmenter';

const INPUT = {
  name: 'pixels',
  layout: 'nchw',
  size: { multiple: 8, max: 32 },
  resize: 'bilinear',
  colour_order: 'rgb',
  scaling: 'unit',
  mean: [0.5, 0.5, 0.5],
  std: [1, 1, 1],
};

/** The mask pipeline replaced by one that hands the map back, so the spec sees what the model answered. */
const engine = {
  run: (_name: string, [map]: [ProbabilityMap]) => Promise.resolve({ mask: map, uncertainty: 0 }),
} as unknown as PixelEngine;
const metrics = { inferred: () => undefined } as unknown as SegmentationMetrics;

describe(LocalSegmenter.name, () => {
  let dir: string;
  let segmenter: LocalSegmenter | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'local-segmenter-'));
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await segmenter?.onModuleDestroy();
    segmenter = undefined;
    await rm(dir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  async function segmenterServing(inputName: string, workerModels: string[] = ['tiny']): Promise<LocalSegmenter> {
    const { manifestPath } = await writeTinyModel(dir, { size: 'dynamic' }, (weights) => ({
      name: 'tiny',
      version: 'tiny-1',
      ...weights,
      licence: 'test',
      input: { ...INPUT, name: inputName },
      output: { tensor: 0, type: 'float16', activation: 'sigmoid', min_max_stretch: true },
    }));
    const models = await configuredModels({
      SEGMENTER: 'local',
      SEGMENTER_MODEL: 'remote',
      SEGMENTATION_INPUT_SIZE: 320,
      SEGMENTATION_MODELS: [manifestPath],
      SEGMENTATION_DEFAULT_MODEL: 'isnet-general-use',
      WORKER_MODELS: workerModels,
    });
    segmenter = new LocalSegmenter({ modelsDir: dir, threads: 1, providers: ['cpu'] }, models, metrics, engine);
    return segmenter;
  }

  const image = { data: Buffer.alloc(64 * 32 * 3, 90), width: 64, height: 32, channels: 3 as const };

  it('cuts out with the model it is asked for and reports its name and version with the weights’ sha256', async () => {
    const local = await segmenterServing('pixels');
    await local.ready();
    const cutout = await local.segment(image, new AbortController().signal, undefined, 'tiny');
    expect(cutout.mask).toMatchObject({ width: 32, height: 16 });
    expect(cutout.segmentation).toEqual({
      model: 'tiny',
      version: expect.stringMatching(/^tiny-1 sha256:[0-9a-f]{12}$/),
      postProcessingVersion: expect.any(String),
    });
  });

  it("leaves the process's libvips settings as they were once its thread has loaded sharp", async () => {
    await withLibvipsThreads(3, async () => {
      const local = await segmenterServing('pixels');
      await local.ready();
      await local.segment(image, new AbortController().signal, undefined, 'tiny');
      expect(libvipsState()).toEqual(LIBVIPS_CHOSEN(3));
    });
  });

  it('refuses a model this worker does not serve, not to be retried', async () => {
    const local = await segmenterServing('pixels');
    const refused = local.segment(image, new AbortController().signal);
    await expect(refused).rejects.toThrow(
      new SegmentationError('The model isnet-general-use is not served here.', false),
    );
    await expect(refused).rejects.toMatchObject({ retryable: false });
  });

  it('is not ready while a served model is refused, and says why in one log line', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const local = await segmenterServing('image');
    await expect(local.ready()).rejects.toThrow(SegmentationError);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors.mock.calls[0][1]).toBe(
      `model tiny (${path.join(dir, 'tiny.json')}): input "image" not in graph (has "pixels")`,
    );
  });
});
