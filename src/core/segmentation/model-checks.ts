import { stat } from 'node:fs/promises';
import type { InferenceSession } from 'onnxruntime-node';
import { sha256OfFile } from '../models/model-files';
import type { RawImage } from '../../engine/raw-image';
import { openOnProviders, type ProviderName } from './execution-providers';
import { ModelRefusedError, type ModelManifest } from './model-manifest';
import { inputSizeFor } from './model-input';
import { ModelSession } from './model-session';

/** A model ready to open: its manifest and where its weights are (for the shipped model, the prepared file). */
export interface ModelPlan {
  manifest: ModelManifest;
  weightsPath: string;
}

/** A session that passed every check, the provider it runs on and the warnings on the way there. */
export interface VerifiedModel {
  session: ModelSession;
  provider: ProviderName;
  warnings: string[];
}

/** A small generated image the dry run feeds: a diagonal ramp, so no stretch divides by zero. */
const DRY_RUN_IMAGE: RawImage = (() => {
  const [width, height] = [64, 48];
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      data.fill(((x + y) * 255) / (width + height), 3 * (y * width + x), 3 * (y * width + x) + 3);
  return { data, width, height, channels: 3 };
})();

/**
 * The model opened only after each check a worker makes before it serves it: the weights are
 * there and are the manifest's (sha256, streamed), a provider of SEGMENTATION_PROVIDERS opens
 * them, the graph's inputs and outputs are what the manifest says, and a dry run on a small
 * generated image answers a map of the expected size with values in 0..1. Any failure is one
 * ModelRefusedError: `model <name> (<manifest>): <what differs>`.
 */
export async function openVerifiedModel(
  plan: ModelPlan,
  options: { intraOpThreads: number; providers: readonly ProviderName[] },
): Promise<VerifiedModel> {
  const { manifest, weightsPath } = plan;
  const source = manifest.manifestPath ?? 'shipped';
  const refuse = (problem: string, cause?: unknown) =>
    new ModelRefusedError(`model ${manifest.name} (${source}): ${problem}`, { cause });

  await verifyWeights(manifest, weightsPath, refuse);
  let outcome;
  try {
    outcome = await openOnProviders(options.providers, (provider) =>
      ModelSession.open(manifest, weightsPath, { intraOpThreads: options.intraOpThreads, provider }),
    );
  } catch (error) {
    throw refuse((error as Error).message, error);
  }
  const { opened: session, provider, warnings } = outcome;
  try {
    const problem =
      graphProblem(manifest, session.inputMetadata, session.outputMetadata) ?? (await dryRunProblem(session));
    if (problem !== null) throw refuse(problem);
  } catch (error) {
    await session.release();
    throw error instanceof ModelRefusedError ? error : refuse(`dry run failed: ${(error as Error).message}`, error);
  }
  return { session, provider, warnings };
}

async function verifyWeights(
  manifest: ModelManifest,
  weightsPath: string,
  refuse: (problem: string) => ModelRefusedError,
): Promise<void> {
  const found = await stat(weightsPath).catch(() => null);
  if (!found?.isFile()) throw refuse(`weights file ${weightsPath} not found`);
  // The shipped weights were checked against their sidecar as they were prepared.
  if (manifest.weights.kind !== 'file') return;
  const actual = await sha256OfFile(weightsPath);
  if (actual !== manifest.weights.sha256) {
    throw refuse(`weights ${weightsPath} have sha256 ${actual}, the manifest says ${manifest.weights.sha256}`);
  }
}

/** What in the graph's declared inputs and outputs disagrees with the manifest, or null. */
export function graphProblem(
  manifest: ModelManifest,
  inputs: readonly InferenceSession.ValueMetadata[],
  outputs: readonly InferenceSession.ValueMetadata[],
): string | null {
  const { input, output } = manifest;
  const names = (values: readonly InferenceSession.ValueMetadata[]) =>
    values.map(({ name }) => JSON.stringify(name)).join(', ');

  const fed = inputs.find(({ name }) => name === input.name);
  if (!fed) return `input "${input.name}" not in graph (has ${names(inputs)})`;
  if (inputs.length > 1) return `the graph takes more inputs than "${input.name}" (has ${names(inputs)})`;
  if (!fed.isTensor || fed.type !== 'float32') {
    return `input "${input.name}" is ${fed.isTensor ? fed.type : 'not a tensor'}, this service feeds float32`;
  }
  const expected = expectedDims(manifest);
  const dimsProblem = shapeProblem(fed.shape, expected);
  if (dimsProblem) return `input "${input.name}" ${dimsProblem}`;

  const read =
    typeof output.tensor === 'number' ? outputs[output.tensor] : outputs.find(({ name }) => name === output.tensor);
  if (!read) return `output ${JSON.stringify(output.tensor)} not in graph (has ${names(outputs)})`;
  if (!read.isTensor || read.type !== output.type) {
    return `output "${read.name}" is ${read.isTensor ? read.type : 'not a tensor'}, the manifest says ${output.type}`;
  }
  return null;
}

/** The input dims the manifest implies: null where any size goes (a dynamic side). */
function expectedDims(manifest: ModelManifest): (number | null)[] {
  const { layout, size } = manifest.input;
  const side = typeof size === 'number' ? size : null;
  return layout === 'nchw' ? [1, 3, side, side] : [1, side, side, 3];
}

/** Why a declared shape cannot take the manifest's tensors; symbolic dims take anything. */
function shapeProblem(shape: ReadonlyArray<number | string>, expected: (number | null)[]): string | null {
  const declared = `[${shape.join(', ')}]`;
  const wanted = `[${expected.map((dim) => dim ?? 'any').join(', ')}]`;
  if (shape.length !== expected.length) return `has dims ${declared}, the manifest implies ${wanted}`;
  for (const [index, dim] of shape.entries()) {
    const want = expected[index];
    if (typeof dim !== 'number' || dim < 0) continue;
    if (want === null) return `has fixed dims ${declared}, the manifest's size is dynamic`;
    if (dim !== want) return `has dims ${declared}, the manifest implies ${wanted}`;
  }
  return null;
}

/** Runs the generated image through the session; what is wrong with its answer, or null. */
async function dryRunProblem(session: ModelSession): Promise<string | null> {
  const { map } = await session.probability(DRY_RUN_IMAGE);
  const expected = inputSizeFor(DRY_RUN_IMAGE, session.manifest.input.size);
  if (map.width !== expected.width || map.height !== expected.height) {
    return `dry run answered a ${map.width}x${map.height} map, expected ${expected.width}x${expected.height}`;
  }
  let [min, max, numbers] = [Infinity, -Infinity, true];
  for (const value of map.data) {
    if (Number.isNaN(value)) numbers = false;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (!numbers || min < 0 || max > 1) {
    const hint = session.manifest.output.activation === 'none' ? ' (logits? try "activation": "sigmoid")' : '';
    return `dry run answered values outside 0..1 (min ${min}, max ${max}${numbers ? '' : ', and NaN'})${hint}`;
  }
  return null;
}
