import { canvasWithin, shapeFor } from '../../../core/image/aspect-ratio';
import type { SourceImage } from '../../../core/image/source-image';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import type { RawImage } from '../../../engine/raw-image';
import { made, type ToolContext, type ToolPipeline, type ToolStep } from '../shared/tool-steps';
import { decodePhoto, photoPlan } from '../shared/photo-decoding';
import { coverTo, paintedSize, PROVIDER_LONG_SIDE, providerPng } from '../../../core/image/provider-images';
import type { GenerationRequest } from './generative-request';

/** What a generation runs with: its provider, checked before any download. */
export interface GenerationPainters {
  provider: ImageProvider;
}

/** A generation's source is its reference image, when the result has one. */
export type GenerationContext = ToolContext<GenerationRequest, GenerationPainters, SourceImage | null>;

/** A generation between its steps. */
export interface GenerationWork {
  /** The reference image as PNG, when the result has one. */
  references: Buffer[];
  painted: Buffer | null;
  image: RawImage | null;
  encoded: EncodedImage | null;
}

type GenerationStep = ToolStep<GenerationContext, GenerationWork>;

/** The result's reference image as the provider is sent it: PNG, no larger than the provider paints. */
const sendReference: GenerationStep = async function sendReference({ source, limits }, work) {
  if (!source) return work;
  const reference = await decodePhoto(source, photoPlan(source, PROVIDER_LONG_SIDE), limits);
  return { ...work, references: [await providerPng(reference)] };
};

/** The provider paints from the prompt in the shape nearest the ratio. */
const paintImage: GenerationStep = async function paintImage({ request, dependencies, signal }, work) {
  const shape = request.ratio ? shapeFor(request.ratio) : 'square';
  const painted = await dependencies.provider.generate(
    { prompt: request.prompt, references: work.references, shape },
    signal,
  );
  return { ...work, painted };
};

/** Cropped at the centre to the exact ratio asked for, or kept at its own size. */
const cropToRatio: GenerationStep = async function cropToRatio({ request }, work) {
  const painted = made(work.painted, 'painted image');
  const size = await paintedSize(painted);
  return { ...work, image: await coverTo(painted, request.ratio ? canvasWithin(size, request.ratio) : size) };
};

/** Encode with the thumbnail. A generated image is new, not the reference photo: it keeps none of its metadata. */
const encodeResult: GenerationStep = async function encodeResult({ choices }, work) {
  return {
    ...work,
    encoded: await encodeImage(made(work.image, 'generated image'), { ...choices.output, carried: null }),
  };
};

/** One generation, in this order. */
export const GENERATION_STEPS: readonly GenerationStep[] = [sendReference, paintImage, cropToRatio, encodeResult];

export const GENERATION_PIPELINE: ToolPipeline<GenerationContext, GenerationWork> = {
  start: () => ({ references: [], painted: null, image: null, encoded: null }),
  steps: GENERATION_STEPS,
  result: ({ encoded }) => made(encoded, 'encoded image'),
};
