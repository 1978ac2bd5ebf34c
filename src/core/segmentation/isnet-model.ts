import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { installedPackage, preparedModelSha256, sha256Of, writePreparedModel } from '../models/model-files';
import { convertForCpu, EXPORTED_INPUT_SIZE } from './isnet-conversion';

/** The ISNet model converted for the CPU and one input size, written once under the models folder. */
export interface PreparedModel {
  /** The prepared `.onnx` file. */
  path: string;
  /** The side, in pixels, of the square image the model takes and of the map it answers. */
  inputSize: number;
  /** The prepared file's sha256 (hex), as recorded in its `.sha256` sidecar. */
  sha256: string;
  /** The model's name, as cut-outs report it. */
  name: string;
  /**
   * What identifies its weights: the data package and version they are read from. Only the
   * model whose sha256 is SOURCE_MODEL_SHA256 is ever prepared from it, so the two name one set of weights.
   */
  weights: string;
}

const DATA_PACKAGE = '@imgly/background-removal-data';
const DATA_PACKAGE_VERSION = '1.4.5';
/** The ISNet variant the data package's medium model is: IS-Net trained for general use. */
const MODEL_NAME = 'isnet-general-use';
const WEIGHTS = `${DATA_PACKAGE}@${DATA_PACKAGE_VERSION}`;
/** The fp16 "medium" ISNet (general use) model; the int8 "small" one was slower and noisier here. */
const MODEL_RESOURCE = '/models/medium';
/**
 * sha256 of the model assembled from the chunks of @imgly/background-removal-data 1.4.5. The chunk
 * layout is that package's internal format and the graph surgery below is written for this exact
 * graph, so any other bytes are refused rather than converted.
 */
const SOURCE_MODEL_SHA256 = 'b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb';

/**
 * The shipped model as it is named and reported: its weights are identified by the data package
 * they come from and the sha256 of the source model assembled from it (the prepared file's own
 * hash varies with the input size it is prepared at).
 */
export const SHIPPED_MODEL = { name: MODEL_NAME, versionLabel: WEIGHTS, sha256: SOURCE_MODEL_SHA256 } as const;

/**
 * The version of convertForCpu's output. It is part of the prepared file's name, so a change to
 * the conversion prepares a new file instead of reusing one made the old way.
 */
const CONVERSION_VERSION = 1;

/**
 * The ISNet model ready for onnxruntime's CPU provider at `inputSize` x `inputSize`: assembled from
 * the data package, verified, converted to fp32 and resized, then written atomically as
 * `<modelsDir>/isnet-general-<inputSize>-<source sha256 prefix>-v<conversion>.onnx` with a `.sha256` sidecar. A
 * file already there is reused when it still matches its sidecar, and rebuilt otherwise. Nothing is
 * downloaded: the weights come from the installed package.
 */
export async function prepareIsnetModel(options: { modelsDir: string; inputSize: number }): Promise<PreparedModel> {
  const { modelsDir, inputSize } = options;
  if (!Number.isInteger(inputSize) || inputSize < 32 || inputSize > EXPORTED_INPUT_SIZE || inputSize % 32 !== 0) {
    throw new Error(`The ISNet input size must be a multiple of 32 up to ${EXPORTED_INPUT_SIZE}, not ${inputSize}`);
  }
  const modelPath = path.join(
    modelsDir,
    `isnet-general-${inputSize}-${SOURCE_MODEL_SHA256.slice(0, 12)}-v${CONVERSION_VERSION}.onnx`,
  );

  const identity = { name: MODEL_NAME, weights: WEIGHTS };
  const existing = await preparedModelSha256(modelPath);
  if (existing) return { path: modelPath, inputSize, sha256: existing, ...identity };

  const sha256 = await writePreparedModel(modelPath, convertForCpu(await assembleSourceModel(), inputSize));
  return { path: modelPath, inputSize, sha256, ...identity };
}

interface ChunkedResource {
  size: number;
  chunks: { hash: string; offsets: [number, number] }[];
}

/** The model's bytes, copied chunk by chunk into one buffer, each chunk and the whole checked against known hashes. */
async function assembleSourceModel(): Promise<Buffer> {
  const { dir, version } = await installedPackage(DATA_PACKAGE);
  const refuse = (problem: string) =>
    new Error(
      `${DATA_PACKAGE} ${version}: ${problem}; the ISNet model is read from the chunk layout of ` +
        `${DATA_PACKAGE} ${DATA_PACKAGE_VERSION} exactly, install that version`,
    );

  const dist = path.join(dir, 'dist');
  const resources = JSON.parse(await readFile(path.join(dist, 'resources.json'), 'utf8')) as Record<
    string,
    ChunkedResource | undefined
  >;
  const resource = resources[MODEL_RESOURCE];
  if (!resource) throw refuse(`resources.json lists no ${MODEL_RESOURCE}`);

  const model = Buffer.allocUnsafe(resource.size);
  let assembled = 0;
  for (const { hash, offsets } of resource.chunks) {
    const [start, end] = offsets;
    if (start !== assembled || end <= start || end > resource.size) throw refuse(`chunk ${hash} is out of order`);
    const file = await open(path.join(dist, hash), 'r');
    try {
      const { bytesRead } = await file.read(model, start, end - start, 0);
      if (bytesRead !== end - start) throw refuse(`chunk ${hash} is shorter than its offsets say`);
    } finally {
      await file.close();
    }
    if (sha256Of(model.subarray(start, end)) !== hash) throw refuse(`chunk ${hash} does not match its hash`);
    assembled = end;
  }
  if (assembled !== resource.size)
    throw refuse(`the chunks of ${MODEL_RESOURCE} do not cover its ${resource.size} bytes`);
  if (sha256Of(model) !== SOURCE_MODEL_SHA256) {
    throw refuse(`the assembled ${MODEL_RESOURCE} model is not the one this code was written for`);
  }
  return model;
}
