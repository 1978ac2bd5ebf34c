import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { installedPackage, preparedModelSha256, sha256Of, verifiedFile, writePreparedModel } from './model-files';

describe('model files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'model-files-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('finds a package by its package.json, or by its main entry when its exports hide the package.json', async () => {
    // @imgly/background-removal-data has no main entry; @upscalerjs/esrgan-slim exports no package.json.
    expect(await installedPackage('@imgly/background-removal-data')).toMatchObject({ version: '1.4.5' });
    const slim = await installedPackage('@upscalerjs/esrgan-slim');
    expect(slim.version).toBe('1.0.0');
    expect(path.basename(slim.dir)).toBe('esrgan-slim');
  });

  it('reads a file only when its sha256 is the expected one', async () => {
    const file = path.join(dir, 'weights.bin');
    await writeFile(file, 'the weights');
    const refuse = (problem: string) => new Error(`refused: ${problem}`);
    expect((await verifiedFile(file, sha256Of(Buffer.from('the weights')), refuse)).toString()).toBe('the weights');
    await expect(verifiedFile(file, sha256Of(Buffer.from('other weights')), refuse)).rejects.toThrow(
      'refused: weights.bin is not the file this code was written for',
    );
    await expect(verifiedFile(path.join(dir, 'absent.bin'), 'x', refuse)).rejects.toThrow(
      'refused: absent.bin is missing',
    );
  });

  it('writes a model with its sidecar, trusts it while they match, and removes abandoned temporaries', async () => {
    const modelPath = path.join(dir, 'models', 'model-v1.onnx');
    expect(await preparedModelSha256(modelPath)).toBeNull();

    const sha256 = await writePreparedModel(modelPath, Buffer.from('model bytes'));
    expect(sha256).toBe(sha256Of(Buffer.from('model bytes')));
    expect((await readFile(`${modelPath}.sha256`, 'utf8')).trim()).toBe(sha256);
    expect(await preparedModelSha256(modelPath)).toBe(sha256);

    await writeFile(modelPath, 'damaged');
    expect(await preparedModelSha256(modelPath)).toBeNull();

    const abandoned = path.join(dir, 'models', 'model-v1.onnx.123.abcd.tmp');
    await writeFile(abandoned, 'half a model');
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(abandoned, hourAgo, hourAgo);
    await writePreparedModel(modelPath, Buffer.from('model bytes'));
    expect((await readdir(path.join(dir, 'models'))).sort()).toEqual(['model-v1.onnx', 'model-v1.onnx.sha256']);
  });
});
