import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ModelRefusedError } from './model-manifest';
import { configuredModels, reportedVersion } from './segmentation-models';

const SHA = 'c'.repeat(64);
const SHIPPED_SHA = 'b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb';

describe(configuredModels.name, () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'segmentation-models-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function manifest(file: string, fields: Record<string, unknown>): Promise<string> {
    const manifestPath = path.join(dir, file);
    await writeFile(manifestPath, JSON.stringify({ preset: 'birefnet', file: 'w.onnx', sha256: SHA, ...fields }));
    return manifestPath;
  }

  const local = (settings: Partial<Parameters<typeof configuredModels>[0]> = {}) =>
    configuredModels({
      SEGMENTER: 'local',
      SEGMENTER_MODEL: 'remote',
      SEGMENTATION_INPUT_SIZE: 768,
      SEGMENTATION_MODELS: [],
      SEGMENTATION_DEFAULT_MODEL: 'isnet-general-use',
      WORKER_MODELS: [],
      ...settings,
    });

  it('describes the shipped model by default, from its built-in manifest', async () => {
    const models = await local();
    expect(models.all).toEqual([
      {
        name: 'isnet-general-use',
        versionLabel: '@imgly/background-removal-data@1.4.5',
        sha256: SHIPPED_SHA,
        licence: expect.stringMatching(/Apache-2\.0/),
        inputSize: '768x768',
      },
    ]);
    expect(models.served).toEqual(['isnet-general-use']);
    expect(reportedVersion(models.defaultModel)).toBe('@imgly/background-removal-data@1.4.5 sha256:b6e8497ba978');
  });

  it('puts the configured default first and serves WORKER_MODELS only', async () => {
    const models = await local({
      SEGMENTATION_MODELS: [
        await manifest('birefnet.json', { name: 'birefnet', version: 'general-epoch_244' }),
        await manifest('dyn.json', { name: 'dyn', input: { size: { multiple: 32, max: 2048 } } }),
      ],
      SEGMENTATION_DEFAULT_MODEL: 'birefnet',
      WORKER_MODELS: ['dyn'],
    });
    expect(models.all.map(({ name }) => name)).toEqual(['birefnet', 'isnet-general-use', 'dyn']);
    expect(models.defaultModel.name).toBe('birefnet');
    expect(models.served).toEqual(['dyn']);
    expect(models.byName('dyn')?.inputSize).toBe('longer side up to 2048, multiple of 32');
    expect(reportedVersion(models.byName('birefnet') ?? models.defaultModel)).toBe(
      'general-epoch_244 sha256:cccccccccccc',
    );
    expect(models.byName('nope')).toBeUndefined();
  });

  it('refuses a default model that is not configured', async () => {
    await expect(local({ SEGMENTATION_DEFAULT_MODEL: 'birefnet' })).rejects.toThrow(
      new ModelRefusedError('SEGMENTATION_DEFAULT_MODEL birefnet is not configured (configured: isnet-general-use)'),
    );
  });

  it('refuses WORKER_MODELS naming a model that is not configured', async () => {
    await expect(local({ WORKER_MODELS: ['isnet-general-use', 'ben2'] })).rejects.toThrow(
      'WORKER_MODELS names ben2, not configured (configured: isnet-general-use)',
    );
  });

  it('refuses two models of one name, naming both manifests', async () => {
    const first = await manifest('a.json', { name: 'birefnet' });
    const second = await manifest('b.json', { name: 'birefnet' });
    await expect(local({ SEGMENTATION_MODELS: [first, second] })).rejects.toThrow(
      `two segmentation models are named birefnet: ${first} and ${second}`,
    );
    const shadow = await manifest('c.json', { name: 'isnet-general-use' });
    await expect(local({ SEGMENTATION_MODELS: [shadow] })).rejects.toThrow(
      `two segmentation models are named isnet-general-use: the shipped model and ${shadow}`,
    );
  });

  it('knows only the remote model’s name with SEGMENTER=remote', async () => {
    const models = await local({ SEGMENTER: 'remote', SEGMENTER_MODEL: 'vendor-v2' });
    expect(models.all).toEqual([
      { name: 'vendor-v2', versionLabel: null, sha256: null, licence: null, inputSize: null },
    ]);
    expect(reportedVersion(models.defaultModel)).toBeNull();
    expect(models.served).toEqual(['vendor-v2']);
  });

  it('describes the shipped model only with SEGMENTER=none, reading no manifest', async () => {
    const models = await local({ SEGMENTER: 'none', SEGMENTATION_MODELS: [path.join(dir, 'absent.json')] });
    expect(models.all.map(({ name }) => name)).toEqual(['isnet-general-use']);
  });
});
