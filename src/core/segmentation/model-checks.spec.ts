import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeTinyModel, type TinyModelOptions } from '../../../test/support/tiny-onnx-model';
import { openOnProviders } from './execution-providers';
import { openVerifiedModel } from './model-checks';
import { ModelRefusedError, readModelManifest } from './model-manifest';

const INPUT = {
  name: 'pixels',
  layout: 'nchw',
  size: 40,
  resize: 'bilinear',
  colour_order: 'rgb',
  scaling: 'unit',
  mean: [0.5, 0.5, 0.5],
  std: [1, 1, 1],
};
const OUTPUT = { tensor: 'mask', type: 'float16', activation: 'sigmoid', min_max_stretch: true };

describe(openVerifiedModel.name, () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'model-checks-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes the tiny graph and a manifest over it (`change` edits the manifest), then opens it as a worker would. */
  async function open(
    change: (manifest: Record<string, unknown>) => Record<string, unknown> = (manifest) => manifest,
    graph: TinyModelOptions = { size: 40 },
    providers: ('cpu' | 'cuda')[] = ['cpu'],
  ) {
    const { manifestPath } = await writeTinyModel(dir, graph, (weights) =>
      change({ name: 'tiny', ...weights, licence: 'test', input: INPUT, output: OUTPUT }),
    );
    const manifest = await readModelManifest(manifestPath);
    // As a worker plans it: the weights are where the manifest says.
    const weightsPath = manifest.weights.kind === 'file' ? manifest.weights.path : '';
    const verified = await openVerifiedModel({ manifest, weightsPath }, { intraOpThreads: 1, providers });
    await verified.session.release();
    return { verified };
  }

  /** The refusal's message, with the manifest's path put as `<manifest>` so the assertion reads plainly. */
  async function refusal(...args: Parameters<typeof open>): Promise<string> {
    const error = await open(...args).then(
      () => null,
      (refused: unknown) => refused,
    );
    expect(error).toBeInstanceOf(ModelRefusedError);
    return (error as Error).message.replaceAll(path.join(dir, 'tiny.json'), '<manifest>').replaceAll(dir, '<dir>');
  }

  it('opens a model whose weights, graph and dry run agree with its manifest, on cpu', async () => {
    const { verified } = await open();
    expect({ provider: verified.provider, warnings: verified.warnings }).toEqual({ provider: 'cpu', warnings: [] });
  });

  it('refuses weights whose sha256 is not the manifest’s', async () => {
    const message = await refusal((manifest) => ({ ...manifest, sha256: '0'.repeat(64) }));
    expect(message).toMatch(
      /^model tiny \(<manifest>\): weights <dir>\/tiny\.onnx have sha256 [0-9a-f]{64}, the manifest says 0{64}$/,
    );
  });

  it('refuses a missing weights file', async () => {
    const message = await refusal((manifest) => ({ ...manifest, file: 'elsewhere.onnx' }));
    expect(message).toBe('model tiny (<manifest>): weights file <dir>/elsewhere.onnx not found');
  });

  it('refuses an input name the graph does not have, naming the one it has', async () => {
    const message = await refusal((manifest) => ({ ...manifest, input: { ...INPUT, name: 'input' } }));
    expect(message).toBe('model tiny (<manifest>): input "input" not in graph (has "pixels")');
  });

  it('refuses a size the graph’s dimensions do not take', async () => {
    const message = await refusal((manifest) => ({ ...manifest, input: { ...INPUT, size: 32 } }));
    expect(message).toBe(
      'model tiny (<manifest>): input "pixels" has dims [1, 3, 40, 40], the manifest implies [1, 3, 32, 32]',
    );
  });

  it('refuses a dynamic size over a graph with fixed dimensions', async () => {
    const message = await refusal((manifest) => ({ ...manifest, input: { ...INPUT, size: { multiple: 8, max: 64 } } }));
    expect(message).toBe(
      'model tiny (<manifest>): input "pixels" has fixed dims [1, 3, 40, 40], the manifest\'s size is dynamic',
    );
  });

  it('refuses an output element type that is not the manifest’s', async () => {
    const message = await refusal((manifest) => ({ ...manifest, output: { ...OUTPUT, type: 'float32' } }));
    expect(message).toBe('model tiny (<manifest>): output "mask" is float16, the manifest says float32');
  });

  it('refuses a model whose dry run answers values outside 0..1 (logits without the sigmoid)', async () => {
    const message = await refusal(
      (manifest) => ({ ...manifest, output: { ...OUTPUT, activation: 'none', min_max_stretch: false } }),
      { size: 40, gain: 10, bias: 3 },
    );
    expect(message).toMatch(/^model tiny \(<manifest>\): dry run answered values outside 0\.\.1 \(min .*\(logits\?/);
  });

  it('refuses cuda alone where onnxruntime-node has no CUDA libraries, and does not fall back to the CPU', async () => {
    const message = await refusal(undefined, undefined, ['cuda']);
    expect(message).toBe(
      "model tiny (<manifest>): execution provider cuda is not available: onnxruntime-node's " +
        'libonnxruntime_providers_cuda.so is not installed (its installer is denied by default; ' +
        'see docs/operating.md "On a GPU")',
    );
  });

  it('falls back from cuda to cpu with a warning when cpu follows it, and says it runs on cpu', async () => {
    const { verified } = await open(undefined, undefined, ['cuda', 'cpu']);
    expect(verified.provider).toBe('cpu');
    expect(verified.warnings).toEqual([
      expect.stringMatching(
        /^execution provider cuda is not available: .*; falling back along SEGMENTATION_PROVIDERS$/,
      ),
    ]);
  });
});

describe(openOnProviders.name, () => {
  const nothingMissing = () => null;

  it('passes over a provider that fails to open only when cpu follows it', async () => {
    const open = (provider: string) =>
      provider === 'cuda' ? Promise.reject(new Error('no CUDA device')) : Promise.resolve(provider);
    await expect(openOnProviders(['cuda', 'cpu'], open, nothingMissing)).resolves.toEqual({
      opened: 'cpu',
      provider: 'cpu',
      warnings: [
        'execution provider cuda could not open the model: no CUDA device; falling back along SEGMENTATION_PROVIDERS',
      ],
    });
    await expect(openOnProviders(['cuda'], open, nothingMissing)).rejects.toThrow(
      'execution provider cuda could not open the model: no CUDA device',
    );
  });

  it('uses the first provider that is available', async () => {
    const open = (provider: string) => Promise.resolve(provider);
    await expect(openOnProviders(['tensorrt', 'cuda', 'cpu'], open, nothingMissing)).resolves.toMatchObject({
      provider: 'tensorrt',
      warnings: [],
    });
  });
});

describe(readModelManifest.name, () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'model-manifest-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function read(manifest: unknown) {
    const file = path.join(dir, 'model.json');
    await writeFile(file, typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
    return readModelManifest(file);
  }

  async function refusal(manifest: unknown): Promise<string> {
    const error = await read(manifest).then(
      () => null,
      (refused: unknown) => refused,
    );
    expect(error).toBeInstanceOf(ModelRefusedError);
    return (error as Error).message.replace(path.join(dir, 'model.json'), '<manifest>');
  }

  const SHA = 'a'.repeat(64);

  it('fills a four-line manifest from its preset, the weights relative to the manifest', async () => {
    const manifest = await read({ preset: 'birefnet', name: 'birefnet', file: 'BiRefNet.onnx', sha256: SHA });
    expect(manifest).toMatchObject({
      name: 'birefnet',
      version: 'BiRefNet.onnx',
      weights: { kind: 'file', path: path.join(dir, 'BiRefNet.onnx'), sha256: SHA },
      input: { name: 'input_image', size: 1024, scaling: 'unit', mean: [0.485, 0.456, 0.406] },
      output: { activation: 'sigmoid', minMaxStretch: false, type: 'float32' },
      licence: 'MIT',
    });
  });

  it('lets a manifest override one field of its preset and keep the others', async () => {
    const manifest = await read({
      preset: 'ben2',
      name: 'ben2',
      file: 'BEN2_Base.onnx',
      sha256: SHA,
      input: { name: 'input.1' },
      output: { type: 'float16' },
    });
    expect(manifest.input).toMatchObject({ name: 'input.1', size: 1024, resize: 'lanczos3' });
    expect(manifest.output).toMatchObject({ type: 'float16', tensor: 0 });
  });

  it('says rmbg-1.4 is for non-commercial use only', async () => {
    const manifest = await read({
      preset: 'rmbg-1.4',
      name: 'rmbg',
      file: 'm.onnx',
      sha256: SHA,
      input: { name: 'x' },
    });
    expect(manifest.licence).toMatch(/NON-COMMERCIAL/);
  });

  it.each([
    [{ preset: 'birefnet-xl', name: 'b', file: 'b.onnx', sha256: SHA }, 'model manifest <manifest>: unknown preset'],
    [{ preset: 'birefnet', file: 'b.onnx', sha256: SHA }, 'model manifest <manifest>: name: '],
    [{ preset: 'birefnet', name: 'b', sha256: SHA }, 'model manifest <manifest>: file: is required'],
    [{ preset: 'birefnet', name: 'b', file: 'b.onnx' }, 'model manifest <manifest>: sha256: is required'],
    [{ preset: 'ben2', name: 'b', file: 'b.onnx', sha256: SHA }, 'model manifest <manifest>: input.name: '],
    [
      { preset: 'birefnet', name: 'b', file: 'b.onnx', sha256: SHA, input: { layout: 'chw' } },
      'model manifest <manifest>: input.layout: ',
    ],
    [{ preset: 'birefnet', name: 'B!', file: 'b.onnx', sha256: SHA }, 'model manifest <manifest>: name: lower-case'],
    [{ preset: 'birefnet', name: 'b', file: 'b.onnx', sha256: 'abc' }, 'model manifest <manifest>: sha256: is not 64'],
    [{ preset: 'birefnet', name: 'b', file: 'b.onnx', sha256: SHA, typo: 1 }, 'model manifest <manifest>: manifest: '],
    [{ preset: 'isnet', name: 'b', weights: 'shipped', input: { size: { multiple: 32, max: 1024 } } }, 'square size'],
    ['{ not json', 'model manifest <manifest>: is not JSON'],
  ])('refuses %j, saying what is wrong', async (manifest, message) => {
    expect(await refusal(manifest)).toContain(message);
  });

  it('refuses a manifest file that is not there', async () => {
    await expect(readModelManifest(path.join(dir, 'absent.json'))).rejects.toThrow(
      `model manifest ${path.join(dir, 'absent.json')}: file not found`,
    );
  });
});
