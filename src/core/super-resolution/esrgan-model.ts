import path from 'node:path';
import { installedPackage, preparedModelSha256, verifiedFile, writePreparedModel } from '../models/model-files';
import { convertEsrgan, upsamplingOf } from './esrgan-conversion';

/** The scales the service enlarges by with a model; other factors are reached with Lanczos from one of them. */
export type ModelScale = 2 | 4;

/** An ESRGAN model converted to ONNX, written once under the models folder. */
export interface PreparedEsrganModel {
  /** The prepared `.onnx` file. */
  path: string;
  /** How many times larger, on each side, the model's output is than its input. */
  scale: ModelScale;
  /** The prepared file's sha256 (hex), as recorded in its `.sha256` sidecar. */
  sha256: string;
}

const MODEL_PACKAGE = '@upscalerjs/esrgan-slim';
const MODEL_PACKAGE_VERSION = '1.0.0';

/**
 * sha256 of each scale's model.json and weights shard in @upscalerjs/esrgan-slim 1.0.0 (MIT). The
 * conversion is written for these exact graphs, so any other bytes are refused rather than converted.
 */
const SOURCE_FILES: Record<ModelScale, { modelJson: string; shard: string }> = {
  2: {
    modelJson: '8efb488c2caed0196a6163e3f06798f9245e92623ffd50654a26c372e09150ea',
    shard: '5cb464ae4d390ce0a771afd5feaf60fbfcdb18ab48a56db98cdf6b88202369de',
  },
  4: {
    modelJson: '3a2eaa642232567e7d2a2e7638c9704f42f63f355fc656c18aa78bf2da1d903d',
    shard: '82637daaf3ba024df5e9da2389e8992e7a6e8a992ba6268ce6bc490c92e9516e',
  },
};

/**
 * The version of convertEsrgan's output. It is part of the prepared file's name, so a change to
 * the conversion prepares a new file instead of reusing one made the old way.
 */
const CONVERSION_VERSION = 1;

/** The source files of one scale, as the installed package holds them. */
export interface EsrganSource {
  modelJson: Buffer;
  shard: Buffer;
}

/**
 * The model.json and weights shard of the slim ESRGAN model for `scale`, read from the installed
 * package and verified against their known sha256: nothing is downloaded.
 */
export async function esrganSource(scale: ModelScale): Promise<EsrganSource> {
  const { dir, version } = await installedPackage(MODEL_PACKAGE);
  const refuse = (problem: string) =>
    new Error(
      `${MODEL_PACKAGE} ${version}: ${problem}; the x${scale} super-resolution model is converted from ` +
        `${MODEL_PACKAGE} ${MODEL_PACKAGE_VERSION} exactly, install that version`,
    );
  const folder = path.join(dir, 'models', `x${scale}`);
  const expected = SOURCE_FILES[scale];
  const modelJson = await verifiedFile(path.join(folder, 'model.json'), expected.modelJson, refuse);
  const shard = await verifiedFile(path.join(folder, 'group1-shard1of1.bin'), expected.shard, refuse);
  if (upsamplingOf(modelJson) !== scale) throw refuse(`models/x${scale} does not enlarge ${scale} times`);
  return { modelJson, shard };
}

/**
 * The slim ESRGAN model for `scale`, converted to ONNX and written atomically as
 * `<modelsDir>/esrgan-slim-x<scale>-<model.json sha256 prefix>-v<conversion>.onnx` with a
 * `.sha256` sidecar. A file already there is reused when it still matches its sidecar, and rebuilt
 * otherwise.
 */
export async function prepareEsrganModel(options: {
  modelsDir: string;
  scale: ModelScale;
}): Promise<PreparedEsrganModel> {
  const { modelsDir, scale } = options;
  const modelPath = path.join(
    modelsDir,
    `esrgan-slim-x${scale}-${SOURCE_FILES[scale].modelJson.slice(0, 12)}-v${CONVERSION_VERSION}.onnx`,
  );
  const existing = await preparedModelSha256(modelPath);
  if (existing) return { path: modelPath, scale, sha256: existing };

  const { modelJson, shard } = await esrganSource(scale);
  const sha256 = await writePreparedModel(modelPath, convertEsrgan(modelJson, shard));
  return { path: modelPath, scale, sha256 };
}
