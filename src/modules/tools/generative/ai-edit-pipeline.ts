import { canvasHolding, shapeFor, type AspectRatio } from '../../../core/image/aspect-ratio';
import { composite } from '../../../engine/compose/composite';
import { reframe, type CutoutLayers } from '../../../engine/compose/cutout-layers';
import { subjectBounds, type AlphaMask, type PixelBounds } from '../../../engine/mask/alpha-mask';
import type { RawImage, Size } from '../../../engine/raw-image';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import { decodeSourceAt } from '../shared/photo-decoding';
import { made, type ToolContext, type ToolPipeline, type ToolStep } from '../shared/tool-steps';
import { coverTo, keepMaskPng, providerPng } from '../../../core/image/provider-images';
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

/** The photo is decoded no larger than this: providers paint at about 1.5k a side. */
export const AI_EDIT_PHOTO_LONG_SIDE = 2048;

/** What an AI edit runs with: its provider, and the segmenter unless the level is `creative`. */
export interface AiEditPainters {
  provider: ImageProvider;
  segmenter: Segmenter | null;
}

export type AiEditContext = ToolContext<AiEditRequest, AiEditPainters>;

/** A placement of the photo on the canvas (see placeOnCanvas). */
type Placement = ReturnType<typeof placeOnCanvas>;

/** An AI edit between its steps. */
export interface AiEditWork {
  photo: RawImage | null;
  alpha: AlphaMask | null;
  /** The subject's bounds in the photo, null for `creative` (which keeps nothing). */
  subject: PixelBounds | null;
  placement: Placement | null;
  placed: CutoutLayers | null;
  /** The provider's answer fitted to the canvas. */
  painted: RawImage | null;
  edited: RawImage | null;
  encoded: EncodedImage | null;
}

type AiEditStep = ToolStep<AiEditContext, AiEditWork>;

/** The photo at AI_EDIT_PHOTO_LONG_SIDE. */
const decodeSource: AiEditStep = decodeSourceAt(AI_EDIT_PHOTO_LONG_SIDE);

/** The subject's mask; the whole photo for `creative`, which keeps nothing. */
const segmentSubject: AiEditStep = async function segmentSubject({ dependencies: { segmenter }, signal }, work) {
  const photo = made(work.photo, 'decoded photo');
  if (!segmenter) {
    const whole = {
      data: new Uint8Array(photo.width * photo.height).fill(255),
      width: photo.width,
      height: photo.height,
    };
    return { ...work, alpha: whole, subject: null };
  }
  const alpha = (await segmenter.segment(photo, signal)).mask;
  return { ...work, alpha, subject: subjectBounds(alpha) };
};

/** The photo placed on a canvas of the requested ratio, around the subject. */
const placePhoto: AiEditStep = async function placePhoto({ request }, work) {
  const photo = made(work.photo, 'decoded photo');
  const placement = placeOnCanvas(photo, work.subject, request.ratio);
  return { ...work, placement, placed: await photoOnCanvas(photo, made(work.alpha, 'subject mask'), placement) };
};

/** The provider sent the placed photo and the mask of what it must keep; its answer fitted to the canvas. */
const paintEdit: AiEditStep = async function paintEdit({ request, dependencies: { provider }, signal }, work) {
  const photo = made(work.photo, 'decoded photo');
  const placement = made(work.placement, 'placement');
  const inputs = providerInputs(made(work.placed, 'placed photo'), photoArea(placement, photo), request.preservation);
  const [png, mask] = await Promise.all([providerPng(inputs.image), keepMaskPng(inputs.keep)]);
  const painted = await provider.edit(
    { image: png, mask, prompt: request.prompt, shape: shapeFor(placement.canvas) },
    signal,
  );
  return { ...work, painted: await coverTo(painted, placement.canvas) };
};

/** The product's own pixels kept as the preservation level promises. */
const keepSubject: AiEditStep = async function keepSubject({ request, limits }, work) {
  const placed = made(work.placed, 'placed photo');
  const painted = made(work.painted, 'painted edit');
  return {
    ...work,
    edited: await limits.engine.run('preservedSubject', [placed, painted, request.preservation], [placed]),
  };
};

/** Encode with the thumbnail. */
const encodeResult: AiEditStep = async function encodeResult({ choices }, work) {
  return {
    ...work,
    encoded: await encodeImage(made(work.edited, 'edited image'), { ...choices.output, carried: choices.carried }),
  };
};

/** One AI edit, in this order. */
export const AI_EDIT_STEPS: readonly AiEditStep[] = [
  decodeSource,
  segmentSubject,
  placePhoto,
  paintEdit,
  keepSubject,
  encodeResult,
];

export const AI_EDIT_PIPELINE: ToolPipeline<AiEditContext, AiEditWork> = {
  start: () => ({
    photo: null,
    alpha: null,
    subject: null,
    placement: null,
    placed: null,
    painted: null,
    edited: null,
    encoded: null,
  }),
  steps: AI_EDIT_STEPS,
  result: ({ encoded }) => made(encoded, 'encoded image'),
};
