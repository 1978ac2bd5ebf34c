import type { AppConfig } from '../config/config.schema';
import { SHIPPED_MODEL } from './isnet-model';
import {
  describeInputSize,
  ModelRefusedError,
  readModelManifest,
  shippedManifest,
  type ModelManifest,
} from './model-manifest';

export interface SegmentationModelInfo {
  name: string;
  /** the manifest's version label, e.g. '@imgly/background-removal-data@1.4.5'; null for a remote segmenter */
  versionLabel: string | null;
  /**
   * hex sha256 of the weights (for shipped ISNet: of the source model assembled from the package, b6e8497b…);
   * null for remote
   */
  sha256: string | null;
  licence: string | null;
  /** e.g. '768x768' or 'longer side up to 2048, multiple of 32'; null for remote */
  inputSize: string | null;
}

export interface SegmentationModels {
  readonly defaultModel: SegmentationModelInfo;
  readonly all: readonly SegmentationModelInfo[]; // default first
  byName(name: string): SegmentationModelInfo | undefined;
  /** names this process's worker serves (WORKER_MODELS, or all) */
  readonly served: readonly string[];
}

/** The configured models (SegmentationModels), read from the manifests at start without loading any weights. */
export const SEGMENTATION_MODELS = Symbol('SEGMENTATION_MODELS');

/** `${versionLabel} sha256:${sha256.slice(0,12)}`, or versionLabel/null when no sha */
export function reportedVersion(model: SegmentationModelInfo): string | null {
  if (model.versionLabel === null || model.sha256 === null) return model.versionLabel;
  return `${model.versionLabel} sha256:${model.sha256.slice(0, 12)}`;
}

/** A configured model: what clients see of it, and its manifest when this process can run it. */
interface ConfiguredModel {
  info: SegmentationModelInfo;
  manifest: ModelManifest | null;
}

/** The models of one configuration, the default first, and which of them this process serves. */
export class ConfiguredModels implements SegmentationModels {
  readonly all: readonly SegmentationModelInfo[];
  readonly served: readonly string[];
  private readonly byNames: ReadonlyMap<string, ConfiguredModel>;

  /** `models` with the default first; `workerModels` empty means every model. Refuses what does not add up. */
  constructor(models: readonly ConfiguredModel[], workerModels: readonly string[]) {
    const byNames = new Map<string, ConfiguredModel>();
    for (const model of models) {
      if (byNames.has(model.info.name)) {
        const files = models.filter(({ info }) => info.name === model.info.name).map(sourceOf);
        throw new ModelRefusedError(`two segmentation models are named ${model.info.name}: ${files.join(' and ')}`);
      }
      byNames.set(model.info.name, model);
    }
    const unknown = workerModels.filter((name) => !byNames.has(name));
    if (unknown.length > 0) {
      throw new ModelRefusedError(
        `WORKER_MODELS names ${unknown.join(', ')}, not configured (configured: ${[...byNames.keys()].join(', ')})`,
      );
    }
    this.byNames = byNames;
    this.all = models.map(({ info }) => info);
    this.served = workerModels.length > 0 ? [...new Set(workerModels)] : this.all.map(({ name }) => name);
  }

  get defaultModel(): SegmentationModelInfo {
    return this.all[0];
  }

  byName(name: string): SegmentationModelInfo | undefined {
    return this.byNames.get(name)?.info;
  }

  /** The manifest of a model this process can run; undefined for a remote model or an unknown name. */
  manifest(name: string): ModelManifest | undefined {
    return this.byNames.get(name)?.manifest ?? undefined;
  }
}

function sourceOf({ manifest }: ConfiguredModel): string {
  return manifest?.manifestPath ?? 'the shipped model';
}

function localModel(manifest: ModelManifest): ConfiguredModel {
  const sha256 = manifest.weights.kind === 'file' ? manifest.weights.sha256 : SHIPPED_MODEL.sha256;
  const info = {
    name: manifest.name,
    versionLabel: manifest.version,
    sha256,
    licence: manifest.licence,
    inputSize: describeInputSize(manifest.input.size),
  };
  return { info, manifest };
}

/** The shipped ISNet's built-in manifest: the `isnet` preset at `inputSize` (SEGMENTATION_INPUT_SIZE), its weights. */
export function shippedModelManifest(inputSize: number): ModelManifest {
  return shippedManifest({ name: SHIPPED_MODEL.name, version: SHIPPED_MODEL.versionLabel, inputSize });
}

function shippedModel(inputSize: number): ConfiguredModel {
  return localModel(shippedModelManifest(inputSize));
}

/**
 * The configuration's models. SEGMENTER=local: the shipped model and every manifest in
 * SEGMENTATION_MODELS, SEGMENTATION_DEFAULT_MODEL first. SEGMENTER=remote: the service's one
 * model, SEGMENTER_MODEL, about which nothing else is known. SEGMENTER=none: the shipped model's
 * description only, so model names still validate while live results fail as they always have.
 */
export async function configuredModels(
  config: Pick<
    AppConfig,
    | 'SEGMENTER'
    | 'SEGMENTER_MODEL'
    | 'SEGMENTATION_INPUT_SIZE'
    | 'SEGMENTATION_MODELS'
    | 'SEGMENTATION_DEFAULT_MODEL'
    | 'WORKER_MODELS'
  >,
): Promise<ConfiguredModels> {
  switch (config.SEGMENTER) {
    case 'remote': {
      const info = { name: config.SEGMENTER_MODEL, versionLabel: null, sha256: null, licence: null, inputSize: null };
      return new ConfiguredModels([{ info, manifest: null }], []);
    }
    case 'none':
      return new ConfiguredModels([shippedModel(config.SEGMENTATION_INPUT_SIZE)], []);
    case 'local': {
      const manifests = await Promise.all(config.SEGMENTATION_MODELS.map(readModelManifest));
      const models = [shippedModel(config.SEGMENTATION_INPUT_SIZE), ...manifests.map(localModel)];
      const defaultModel = models.find(({ info }) => info.name === config.SEGMENTATION_DEFAULT_MODEL);
      if (!defaultModel) {
        throw new ModelRefusedError(
          `SEGMENTATION_DEFAULT_MODEL ${config.SEGMENTATION_DEFAULT_MODEL} is not configured ` +
            `(configured: ${models.map(({ info }) => info.name).join(', ')})`,
        );
      }
      return new ConfiguredModels(
        [defaultModel, ...models.filter((model) => model !== defaultModel)],
        config.WORKER_MODELS,
      );
    }
  }
}
