import { SHIPPED_MODEL_NAME } from './shipped-model-name';

/** One model a request may name: what GET /tools lists and what a cut-out reports. */
export interface SegmentationModelInfo {
  name: string;
  versionLabel: string | null;
  sha256: string | null;
  licence: string | null;
  inputSize: string | null;
}

export interface SegmentationModels {
  readonly defaultModel: SegmentationModelInfo;
  readonly all: readonly SegmentationModelInfo[];
  byName(name: string): SegmentationModelInfo | undefined;
  readonly served: readonly string[];
}

export const SEGMENTATION_MODELS = Symbol('SEGMENTATION_MODELS');

export function reportedVersion(model: SegmentationModelInfo): string | null {
  if (model.sha256 === null) return model.versionLabel;
  return `${model.versionLabel} sha256:${model.sha256.slice(0, 12)}`;
}

export const STUB_MODELS: SegmentationModels = {
  defaultModel: {
    name: SHIPPED_MODEL_NAME,
    versionLabel: '@imgly/background-removal-data@1.4.5',
    sha256: 'b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb',
    licence: null,
    inputSize: '768x768',
  },
  all: [],
  byName: () => undefined,
  served: [],
};

export async function loadSegmentationModels(): Promise<SegmentationModels> {
  return STUB_MODELS;
}
