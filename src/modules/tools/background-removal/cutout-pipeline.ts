import { planGeometry, type GeometryPlan } from '../../../core/image/geometry';
import type { Size } from '../../../engine/raw-image';
import type { RawImage } from '../../../engine/raw-image';
import type { CutoutPixels } from '../../../engine/cutout-pixels';
import type { Cutout } from '../../../engine/mask/subject-hints';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import type { Backdrop } from '../../../engine/compose/backdrop';
import type { Placement } from '../../../engine/compose/framing';
import { checkRoomOnCanvas } from '../shared/canvas-placement';
import { loadedBackdrop, type BackdropSource } from '../shared/backdrop-loading';
import { encodeImage, encodeMaskImage, type EncodedImage } from '../shared/encoding';
import { made, type ToolContext, type ToolPipeline, type ToolStep } from '../shared/tool-steps';
import { ownCutout, requireAlphaChannel } from '../shared/existing-alpha';
import { decodePhoto } from '../shared/photo-decoding';
import type { CutoutRequest } from './cutout-request';

/** Cut-outs are made at most this large; a larger source's result is scaled down to it (25 megapixels). */
export const CUTOUT_MAX_PIXELS = 25_000_000;

/** How a source is decoded for a cut-out: at its own size, or scaled down to CUTOUT_MAX_PIXELS. */
export function cutoutPlan(source: Size): GeometryPlan {
  const factor = Math.min(1, Math.sqrt(CUTOUT_MAX_PIXELS / (source.width * source.height)));
  return planGeometry(source, { width: Math.max(1, Math.floor(source.width * factor)), upscale: false });
}

/**
 * A cut-out runs with the segmenter, checked before the download (null for a source that is its own
 * mask), and loads its background photo, if any.
 */
export interface CutoutDependencies {
  segmenter: Segmenter | null;
  /** Loads a background photo (`background.type` `image`); absent where none is loaded (benchmarks, unit specs). */
  backdrops?: BackdropSource;
}

export type CutoutContext = ToolContext<CutoutRequest, CutoutDependencies>;

/** A cut-out between its steps. */
export interface CutoutWork {
  photo: RawImage | null;
  /** The background photo decoded, or the blur asked for; null for a colour or transparency. */
  backdrop: Backdrop | null;
  subject: Cutout | null;
  pixels: CutoutPixels | null;
  encoded: EncodedImage | null;
}

type CutoutStep = ToolStep<CutoutContext, CutoutWork>;

/**
 * Decode, flattening any transparency onto white, which is what the model was trained on; a source
 * that is its own mask keeps its transparency (and fails here when its header says it has none).
 */
const decodeSource: CutoutStep = async function decodeSource({ source, request, limits }, work) {
  if (request.existingAlpha) requireAlphaChannel(source);
  const photo = await decodePhoto(source, cutoutPlan(source), limits, { keepAlpha: request.existingAlpha });
  return { ...work, photo };
};

/**
 * The background photo, fetched once per job and decoded to cover the largest result it can be
 * under; before the model runs, so a broken background fails the result without that cost.
 */
const loadBackdrop: CutoutStep = async function loadBackdrop({ request, dependencies, limits }, work) {
  const photo = made(work.photo, 'decoded photo');
  const box = coverBox(photo, request.placement);
  return { ...work, backdrop: await loadedBackdrop(request.backdrop, box, dependencies.backdrops, limits) };
};

/**
 * The subject's mask and how unsure the segmenter was of it, keeping to the client's hints; or the
 * source's own alpha (`existing_alpha` `use`), its colours kept as they are (composeCutout does not clean them).
 */
const segmentSubject: CutoutStep = async function segmentSubject(
  { request, dependencies, limits, signal, choices },
  work,
) {
  const photo = made(work.photo, 'decoded photo');
  if (request.existingAlpha) {
    const own = await ownCutout(photo, limits);
    return { ...work, photo: own.photo, subject: own.cutout };
  }
  if (!dependencies.segmenter) throw new Error('A cut-out needs a segmenter');
  const model = request.model ?? undefined;
  return { ...work, subject: await dependencies.segmenter.segment(photo, signal, choices.hints, model) };
};

/**
 * The engine's cutoutPixels: correct the product's pixels, draw the shadow, frame (the whole
 * photo, a crop around the subject, a canvas the subject fills a set share of, or the client's
 * placement on a canvas), compose onto the background. A mask (`channels` `alpha`) is the framed
 * alpha itself: the same pixels as the alpha of the transparent cut-out, since a mask has neither a
 * background colour nor a shadow.
 */
const composeCutout: CutoutStep = async function composeCutout({ request, limits }, work) {
  const photo = made(work.photo, 'decoded photo');
  const { mask } = made(work.subject, 'subject mask');
  if (request.placement.kind === 'layout') checkRoomOnCanvas(request.placement, photo);
  const { backdrop } = work;
  const pixels = await limits.engine.run(
    'cutoutPixels',
    [photo, mask, { ...request, backdrop, ownEdgeColours: request.existingAlpha }, limits.timeoutSeconds],
    backdrop?.kind === 'photo' ? [photo, mask, backdrop.image] : [photo, mask],
  );
  return { ...work, pixels };
};

/** Encode with the thumbnail; a mask as one channel. */
const encodeResult: CutoutStep = async function encodeResult({ choices }, work) {
  const pixels = made(work.pixels, 'cut-out pixels');
  const { format, file } = choices.output;
  const encoded =
    pixels.kind === 'mask'
      ? await encodeMaskImage(pixels.mask, { file, carried: choices.carried })
      : await encodeImage(pixels.image, { format, file, carried: choices.carried });
  return { ...work, encoded };
};

/** One cut-out result, in this order. */
export const CUTOUT_STEPS: readonly CutoutStep[] = [
  decodeSource,
  loadBackdrop,
  segmentSubject,
  composeCutout,
  encodeResult,
];

export const CUTOUT_PIPELINE: ToolPipeline<CutoutContext, CutoutWork> = {
  start: () => ({ photo: null, backdrop: null, subject: null, pixels: null, encoded: null }),
  steps: CUTOUT_STEPS,
  result: ({ encoded, subject }) => {
    const { uncertainty, segmentation } = made(subject, 'subject mask');
    return { ...made(encoded, 'encoded image'), uncertainty, segmentation };
  },
};

/** The largest result a background photo can be under: the photo's frame, or the canvas where that is larger. */
function coverBox(photo: Size, placement: Placement): Size {
  const canvas =
    placement.kind === 'canvas' ? placement : placement.kind === 'layout' && placement.size ? placement.size : photo;
  return { width: Math.max(photo.width, canvas.width), height: Math.max(photo.height, canvas.height) };
}
