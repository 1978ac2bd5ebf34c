import { canvasHolding, shapeFor, type AspectRatio } from '../../../core/image/aspect-ratio';
import { composite } from '../../../engine/compose/composite';
import { reframe, type CutoutLayers } from '../../../engine/compose/cutout-layers';
import type { GeometryPlan } from '../../../core/image/geometry';
import { subjectBounds, type AlphaMask, type PixelBounds } from '../../../engine/mask/alpha-mask';
import type { RawImage, Size } from '../../../core/image/raw-image';
import type { SourceImage } from '../../../core/image/source-image';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import type { PipelineLimits } from '../shared/pipeline-limits';
import { decodePhoto } from '../shared/photo-decoding';
import { coverTo, keepMaskPng, providerPng } from '../../../core/image/provider-images';
import type { ResultOutput } from '../tool-runner';
import type { PreservationLevel } from '../tool-options';
import type { AiEditRequest } from './generative-request';

/**
 * Where the photo goes on a canvas of the requested ratio: the canvas holds it whole, and it is
 * shifted so the subject is as near the centre as the photo's edges allow. The rest of the canvas
 * is new ground for the provider to paint.
 */
export function placeOnCanvas(
  photo: Size,
  subject: PixelBounds | null,
  ratio: AspectRatio | null,
): { canvas: Size; left: number; top: number } {
  if (!ratio) return { canvas: { width: photo.width, height: photo.height }, left: 0, top: 0 };
  const canvas = canvasHolding(photo, ratio);
  const centre = subject ?? { left: 0, top: 0, ...photo };
  const offset = (canvasSide: number, photoSide: number, subjectCentre: number) =>
    Math.min(canvasSide - photoSide, Math.max(0, Math.round(canvasSide / 2 - subjectCentre)));
  return {
    canvas,
    left: offset(canvas.width, photo.width, centre.left + centre.width / 2),
    top: offset(canvas.height, photo.height, centre.top + centre.height / 2),
  };
}

/** The photo and its subject's alpha moved onto the canvas; outside the photo both are empty. */
export function photoOnCanvas(
  photo: RawImage,
  alpha: AlphaMask,
  placement: { canvas: Size; left: number; top: number },
): Promise<CutoutLayers> {
  const frame = { left: -placement.left, top: -placement.top, ...placement.canvas };
  return reframe({ colour: photo, alpha, shadow: null }, frame, placement.canvas);
}

/**
 * What the provider is sent: the photo on the canvas (transparent where the canvas extends it),
 * and the mask of what it must keep: the subject for `strict` and `balanced`, nothing for
 * `creative`, which may repaint the whole image.
 */
export function providerInputs(
  placed: CutoutLayers,
  photoArea: AlphaMask,
  level: PreservationLevel,
): { image: RawImage; keep: AlphaMask } {
  const image = composite({ ...placed, alpha: photoArea, shadow: null }, null);
  const keep =
    level === 'creative' ? { ...placed.alpha, data: new Uint8Array(placed.alpha.data.length) } : placed.alpha;
  return { image, keep };
}

/** 255 inside the photo's rectangle on the canvas, 0 in the extension. */
export function photoArea(placement: { canvas: Size; left: number; top: number }, photo: Size): AlphaMask {
  const { canvas } = placement;
  const data = new Uint8Array(canvas.width * canvas.height);
  for (let y = placement.top; y < placement.top + photo.height; y++) {
    data.fill(255, y * canvas.width + placement.left, y * canvas.width + placement.left + photo.width);
  }
  return { data, width: canvas.width, height: canvas.height };
}

/** What an AI edit runs with: its provider, and the segmenter unless the level is `creative`. */
export interface AiEditPainters {
  provider: ImageProvider;
  segmenter: Segmenter | null;
}

/**
 * One AI edit, in order: decode the photo at `plan`'s size; the subject's mask (the whole photo
 * for `creative`, which keeps nothing); place the photo on a canvas of the requested ratio around
 * the subject; send the provider the placed photo and the mask of what it must keep; fit its
 * answer to the canvas; keep the product's own pixels as the preservation level promises;
 * encode with the thumbnail.
 */
export async function runAiEdit(
  source: SourceImage,
  plan: GeometryPlan,
  request: AiEditRequest,
  { provider, segmenter }: AiEditPainters,
  limits: PipelineLimits & { signal: AbortSignal },
  output: ResultOutput,
): Promise<EncodedImage> {
  const photo = await decodePhoto(source, plan, limits);
  const alpha = segmenter
    ? (await segmenter.segment(photo, limits.signal)).mask
    : { data: new Uint8Array(photo.width * photo.height).fill(255), width: photo.width, height: photo.height };
  const placement = placeOnCanvas(photo, segmenter ? subjectBounds(alpha) : null, request.ratio);
  const placed = await photoOnCanvas(photo, alpha, placement);
  const inputs = providerInputs(placed, photoArea(placement, photo), request.preservation);
  const [png, mask] = await Promise.all([providerPng(inputs.image), keepMaskPng(inputs.keep)]);
  const painted = await provider.edit(
    { image: png, mask, prompt: request.prompt, shape: shapeFor(placement.canvas) },
    limits.signal,
  );
  const edited = await limits.engine.run(
    'preservedSubject',
    [placed, await coverTo(painted, placement.canvas), request.preservation],
    [placed],
  );
  return encodeImage(edited, { ...output, source });
}
