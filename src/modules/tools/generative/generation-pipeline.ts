import { canvasWithin, shapeFor } from '../../../core/image/aspect-ratio';
import type { SourceImage } from '../../../core/image/source-image';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import type { PipelineLimits } from '../shared/pipeline-limits';
import { decodePhoto, photoPlan } from '../shared/photo-decoding';
import { coverTo, paintedSize, PROVIDER_LONG_SIDE, providerPng } from '../../../core/image/provider-images';
import type { ResultOutput } from '../tool-runner';
import type { GenerationRequest } from './generative-request';

/** The result's reference image as the provider is sent it: PNG, no larger than the provider paints. */
async function referencePng(reference: SourceImage, limits: PipelineLimits & { signal: AbortSignal }): Promise<Buffer> {
  return providerPng(await decodePhoto(reference, photoPlan(reference, PROVIDER_LONG_SIDE), limits));
}

/**
 * One generation, in order: the reference image (when the result has one) sent as PNG; the
 * provider paints from the prompt in the shape nearest the ratio; its image is cropped at the
 * centre to the exact ratio asked for, or kept at its own size; encode with the thumbnail. A
 * generated image is new, not the reference photo: it keeps none of the reference's metadata.
 */
export async function runGeneration(
  reference: SourceImage | null,
  request: GenerationRequest,
  provider: ImageProvider,
  limits: PipelineLimits & { signal: AbortSignal },
  output: ResultOutput,
): Promise<EncodedImage> {
  const references = reference ? [await referencePng(reference, limits)] : [];
  const shape = request.ratio ? shapeFor(request.ratio) : 'square';
  const painted = await provider.generate({ prompt: request.prompt, references, shape }, limits.signal);
  const size = await paintedSize(painted);
  const image = await coverTo(painted, request.ratio ? canvasWithin(size, request.ratio) : size);
  return encodeImage(image, { ...output, source: null });
}
