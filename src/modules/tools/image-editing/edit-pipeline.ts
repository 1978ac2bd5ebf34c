import type { GeometryPlan } from '../../../core/image/geometry';
import type { WindowPosition } from '../../../engine/interesting-region';
import type { Cutout } from '../../../engine/mask/subject-hints';
import { backgroundFor, decodeScaled } from '../../../core/image/pipeline-steps';
import type { OutputFormat } from '../../../core/image/output-format';
import type { RawImage, Rgba } from '../../../engine/raw-image';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import type { ModelScale, Upscaler } from '../../../core/super-resolution/upscaler';
import { undecodableSource, type SourceImage } from '../../../core/image/source-image';
import type { Backdrop } from '../../../engine/compose/backdrop';
import { checkRoomOnCanvas } from '../shared/canvas-placement';
import { loadedBackdrop, type BackdropSource } from '../shared/backdrop-loading';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import { ownCutout, requireAlphaChannel } from '../shared/existing-alpha';
import { made, type ToolContext, type ToolPipeline, type ToolStep } from '../shared/tool-steps';
import { hintsInPart, visiblePart } from './edit-hints';
import { planEdit, type EditPlan } from './edit-plan';
import { editVariantOf, sharpeningOf, type EditCutout, type EditRequest } from './edit-request';
import { superResolved } from './super-resolved';

/**
 * What an edit runs with: the segmenter for a request with a cut-out, the upscaler for one that enlarges with
 * `upscale`.
 */
export interface EditDependencies {
  segmenter: Segmenter | null;
  upscaler: Upscaler | null;
  /** Loads a background photo (`background.type` `image`); absent where no edit loads one (benchmarks, unit specs). */
  backdrops?: BackdropSource;
}

export type EditContext = ToolContext<EditRequest, EditDependencies>;

/** An edit between its steps: the plan made from the header, then the pixels as the steps leave them. */
export interface EditWork {
  plan: EditPlan;
  image: RawImage | null;
  /** Where `crop` cut its window, when it cut one. */
  window: WindowPosition | null;
  cutout: Cutout | null;
  /** The background photo decoded, or the blur asked for; null for a colour, transparency or the original. */
  backdrop: Backdrop | null;
  encoded: EncodedImage | null;
}

type EditStep = ToolStep<EditContext, EditWork>;

/**
 * Decode, orient, sRGB, and one resample to the planned size (shrink-on-load where smaller); when
 * the super-resolution model enlarges, the source at its own size instead (see enlargeWithModel).
 */
const decodeSource: EditStep = async function decodeSource({ source, request, limits, signal, choices }, work) {
  const { geometry, modelScale } = work.plan;
  // A source that is its own mask keeps its transparency until segmentSubject reads it (and fails when it has none).
  const ownMask = request.cutout?.existingAlpha === true;
  if (ownMask) requireAlphaChannel(source);
  const image = await decodeScaled(source, modelScale ? atOwnSize(source) : geometry, {
    maxPixels: limits.maxPixels,
    // A cut-out starts from opaque pixels, as the segmentation model was trained on.
    flattenOnto: !ownMask && (choices.output.format === 'jpg' || request.cutout) ? backgroundFor('jpg') : null,
    timeoutSeconds: limits.timeoutSeconds,
  }).catch((error: unknown) => {
    signal.throwIfAborted();
    // The header was read, so the pixels themselves are damaged or in a variant without a decoder here.
    throw undecodableSource(error);
  });
  return { ...work, image };
};

/**
 * `upscale` by the model: x2 or x4 tile by tile (stopping between tiles when the result is
 * cancelled or out of time), then resampled once to the planned size. It runs before the crop, on
 * the whole source, and its output counts in the result's pixel budget (see planEdit).
 */
const enlargeWithModel: EditStep = async function enlargeWithModel({ dependencies, limits, signal }, work) {
  const { geometry, modelScale } = work.plan;
  if (!modelScale) return work;
  return {
    ...work,
    image: await enlarged(
      made(work.image, 'decoded image'),
      geometry,
      modelScale,
      dependencies,
      limits.timeoutSeconds,
      limits.engine,
      signal,
    ),
  };
};

/** `crop`: the window cut at the most interesting place (the variant picks which one). */
const cropWindow: EditStep = async function cropWindow({ limits, choices }, work) {
  const window = work.plan.geometry.window;
  if (!window) return work;
  const image = made(work.image, 'decoded image');
  const crop = await limits.engine.run('interestingCrop', [image, window, editVariantOf(choices).cropRank], [image]);
  return { ...work, image: crop.image, window: crop.window };
};

/**
 * `background`: the subject's mask, from the pixels as photographed (the client's hints moved onto
 * the part of the source they show); or the source's own alpha (`existing_alpha` `use`), its colours
 * kept as they are (replaceBackground does not clean them).
 */
const segmentSubject: EditStep = async function segmentSubject(
  { source, request, dependencies, limits, signal, choices },
  work,
) {
  if (!request.cutout) return work;
  if (request.cutout.existingAlpha) {
    const own = await ownCutout(made(work.image, 'decoded image'), limits);
    return { ...work, image: own.photo, cutout: own.cutout };
  }
  if (!dependencies.segmenter) throw new Error('A background operation needs a segmenter');
  const hints = hintsInPart(choices.hints, visiblePart(source, work.plan.geometry, work.window));
  const image = made(work.image, 'decoded image');
  return {
    ...work,
    cutout: await dependencies.segmenter.segment(image, signal, hints, request.cutout.model ?? undefined),
  };
};

/**
 * `polish` (noise and JPEG blocking taken out, at the strength measured on these pixels, before any
 * curve stretches the noise unevenly or moves the block means off the JPEG's lattice); `light`
 * and `color` (white balance and exposure measured on the pixels about to be written, applied in
 * one pass in linear light); saturation; sharpening after `polish` or after an enlargement by
 * resampling alone (the model's output is not sharpened again).
 */
const correctPixels: EditStep = async function correctPixels({ source, request, limits, choices }, work) {
  const { geometry, modelScale } = work.plan;
  const variant = editVariantOf(choices);
  const corrections = {
    polish: request.polish,
    tone: {
      light: request.light,
      color: request.color,
      brightnessOffset: variant.brightnessOffset,
      saturationOffset: variant.saturationOffset,
    },
    sharpen: sharpeningOf(request, variant, modelScale ? 1 : geometry.scaled.width / source.width),
  };
  if (!corrections.polish && !request.light && !request.color && !corrections.sharpen) return work;
  const image = made(work.image, 'decoded image');
  return {
    ...work,
    image: await limits.engine.run('correctedPixels', [image, corrections, limits.timeoutSeconds], [image]),
  };
};

/**
 * `background` `image`: the photo, fetched once per job and decoded to cover the image as the
 * earlier steps left it (the size the background is fitted to), or a placement's canvas where that
 * is larger.
 */
const loadBackdrop: EditStep = async function loadBackdrop({ request, dependencies, limits }, work) {
  if (!request.cutout?.backdrop) return work;
  const image = made(work.image, 'decoded image');
  const canvas = request.cutout.placement?.size;
  const box = canvas
    ? { width: Math.max(image.width, canvas.width), height: Math.max(image.height, canvas.height) }
    : image;
  return { ...work, backdrop: await loadedBackdrop(request.cutout.backdrop, box, dependencies.backdrops, limits) };
};

/**
 * `background` and `shadow`: the subject over its new background and shadow, in the photo's frame;
 * with `placement`, framed onto its canvas as a cut-out is (the engine's cutoutPixels, with the
 * corrections already made by correctPixels).
 */
const replaceBackground: EditStep = async function replaceBackground({ request, limits }, work) {
  if (!request.cutout || !work.cutout) return work;
  const image = made(work.image, 'decoded image');
  const { mask } = work.cutout;
  const { backdrop } = work;
  const { background, shadow, placement, existingAlpha } = request.cutout;
  const transfer = backdrop?.kind === 'photo' ? [image, mask, backdrop.image] : [image, mask];
  if (placement && background !== 'original') {
    checkRoomOnCanvas(placement, image);
    const composition = {
      channels: 'rgba' as const,
      background,
      backdrop,
      shadow,
      placement,
      ownEdgeColours: existingAlpha,
      light: false,
      color: false,
      polish: false,
    };
    const placed = await limits.engine.run('cutoutPixels', [image, mask, composition, limits.timeoutSeconds], transfer);
    if (placed.kind !== 'image') throw new Error('A placed cut-out of an edit is an image');
    return { ...work, image: placed.image };
  }
  const change = { ...request.cutout, backdrop, ownEdgeColours: existingAlpha };
  return { ...work, image: await limits.engine.run('replacedBackground', [image, mask, change], transfer) };
};

/** `contain`: pad to the box with the chosen background; encode; the thumbnail from the same pixels. */
const encodeResult: EditStep = async function encodeResult({ request, choices }, work) {
  const { format, file } = choices.output;
  const padding = request.cutout ? paddingFor(request.cutout, format) : backgroundFor(format);
  const image = made(work.image, 'decoded image');
  return {
    ...work,
    encoded: await encodeImage(image, { format, file, carried: choices.carried }, work.plan.geometry.canvas, padding),
  };
};

/**
 * The structured edit of one result, in this fixed order. Every geometric decision is made from
 * the source's header, before decoding (planEdit, the pipeline's start).
 */
export const EDIT_STEPS: readonly EditStep[] = [
  decodeSource,
  enlargeWithModel,
  cropWindow,
  segmentSubject,
  correctPixels,
  loadBackdrop,
  replaceBackground,
  encodeResult,
];

export const EDIT_PIPELINE: ToolPipeline<EditContext, EditWork> = {
  start: ({ source, request, limits }) => ({
    plan: planEdit(source, request, limits.maxPixels),
    image: null,
    window: null,
    cutout: null,
    backdrop: null,
    encoded: null,
  }),
  steps: EDIT_STEPS,
  result: ({ encoded, cutout }) => ({
    ...made(encoded, 'encoded image'),
    uncertainty: cutout?.uncertainty,
    segmentation: cutout?.segmentation,
  }),
};

/** The source decoded as it is: the super-resolution model enlarges it before any resample. */
function atOwnSize(source: SourceImage): GeometryPlan {
  return { scaled: { width: source.width, height: source.height }, mode: 'scale', window: null, canvas: null };
}

function enlarged(
  image: RawImage,
  plan: GeometryPlan,
  scale: ModelScale,
  { upscaler }: EditDependencies,
  timeoutSeconds: number,
  engine: EditContext['limits']['engine'],
  signal: AbortSignal,
): Promise<RawImage> {
  if (!upscaler) throw new Error('An upscale needs an upscaler');
  return superResolved(image, plan, scale, upscaler, { signal, timeoutSeconds, engine });
}

/** What `contain` pads with: the new background (transparent where it is), else the format's default. */
function paddingFor(cutout: EditCutout, format: OutputFormat): Rgba {
  if (cutout.background === 'original') return backgroundFor(format);
  return cutout.background ?? backgroundFor(format);
}
