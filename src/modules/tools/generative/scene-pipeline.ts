import { shapeFor, withLongSide } from '../../../core/image/aspect-ratio';
import { reframe, type CutoutLayers, type Frame } from '../../../engine/compose/cutout-layers';
import type { ShadowStyle } from '../../../engine/compose/shadow';
import { renderStudioBackdrop, studioBackdropFor } from '../../../engine/compose/studio-backdrop';
import { subjectBounds, type AlphaMask } from '../../../engine/mask/alpha-mask';
import type { RawImage, Size } from '../../../engine/raw-image';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { cutOut } from '../shared/cut-out';
import { shadowStyle } from '../shared/cutout-style';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import type { PipelineLimits } from '../shared/pipeline-limits';
import { decodeSourceAt, photoPlan } from '../shared/photo-decoding';
import { made, runSteps, type ToolContext, type ToolPipeline, type ToolStep } from '../shared/tool-steps';
import { coverTo, keepMaskPng, providerPng } from '../../../core/image/provider-images';
import { exactCanvas, type SceneRequest } from './generative-request';

/** The subject's bounding box fills this share of the canvas along its tighter side: room for the scene around it. */
const SUBJECT_FILL = 0.62;

/**
 * Where each variant stands the subject across the canvas (its centre, as a share of the
 * width): the variants of one source differ in layout as well as in backdrop.
 */
const VARIANT_CENTRES = [0.5, 0.4, 0.6, 0.45, 0.55];

/** A provider's backdrop puts the subject's base here, leaving the floor in front of it. */
const PROVIDER_FLOOR_LINE = 0.86;

/** Draws the backdrop behind a placed cut-out: the studio's, or the provider's painted around the subject. */
export type BackdropPainter = (placed: CutoutLayers, canvas: Size) => Promise<RawImage>;

export interface ScenePlan {
  canvas: Size;
  shadow: ShadowStyle;
  /** Where the subject's lowest row stands, as a share of the canvas height. */
  floorLine: number;
  variant: number;
}

/** The frame of the photo that puts the subject where the plan wants it on the canvas. */
export function sceneFrame(subject: Frame, plan: ScenePlan): Frame {
  const { canvas } = plan;
  // Photo pixels per canvas pixel, so the subject fills SUBJECT_FILL where it is tighter.
  const perPixel = Math.max(subject.width / canvas.width, subject.height / canvas.height) / SUBJECT_FILL;
  const width = canvas.width * perPixel;
  const height = canvas.height * perPixel;
  const centre = VARIANT_CENTRES[plan.variant % VARIANT_CENTRES.length];
  return {
    left: Math.round(subject.left + subject.width / 2 - centre * width),
    top: Math.round(subject.top + subject.height - plan.floorLine * height),
    width: Math.max(1, Math.round(width)),
    height: Math.max(1, Math.round(height)),
  };
}

/** The photo is decoded no larger than this: the subject fills well under it on the scene's canvas. */
export const SCENE_PHOTO_LONG_SIDE = 2048;
/** A scene's longer side without a preset: the largest side the providers paint natively. */
const SCENE_LONG_SIDE = 1536;

/** The preset's canvas; else the requested ratio exactly; else the photo's own shape. */
export function sceneCanvas(request: SceneRequest, photo: Size): Size {
  if (request.canvas) return request.canvas;
  if (request.ratio) return exactCanvas(request.ratio, SCENE_LONG_SIDE);
  return withLongSide(photo, SCENE_LONG_SIDE);
}

/** What a scene runs with: the segmenter, and the provider that paints its backdrop (the studio's without one). */
export interface ScenePainters {
  segmenter: Segmenter;
  provider: ImageProvider | null;
}

export type SceneContext = ToolContext<SceneRequest, ScenePainters>;

/** A scene between its steps: where the subject goes and what paints the backdrop, then the layers as made. */
export interface SceneWork {
  plan: ScenePlan;
  painter: BackdropPainter;
  photo: RawImage | null;
  alpha: AlphaMask | null;
  /** The cut-out with its shadow, at the photo's size. */
  layers: CutoutLayers | null;
  /** The cut-out placed on the canvas. */
  placed: CutoutLayers | null;
  backdrop: RawImage | null;
  scene: RawImage | null;
  encoded: EncodedImage | null;
}

type SceneStep = ToolStep<SceneContext, SceneWork>;
/** A step of the composition, which needs nothing of the context but the limits. */
type CompositionStep = ToolStep<Pick<SceneContext, 'limits' | 'signal'>, SceneWork>;

/** The photo at SCENE_PHOTO_LONG_SIDE. */
const decodeSource: SceneStep = decodeSourceAt(SCENE_PHOTO_LONG_SIDE);

/** The subject's mask, keeping to the client's hints. */
const segmentSubject: SceneStep = async function segmentSubject({ dependencies, signal, choices }, work) {
  const photo = made(work.photo, 'decoded photo');
  return { ...work, alpha: (await dependencies.segmenter.segment(photo, signal, choices.hints)).mask };
};

/** The product cut out of its photo with its shadow; its pixels are the photo's own. */
const cutOutSubject: CompositionStep = async function cutOutSubject({ limits }, work) {
  const photo = made(work.photo, 'decoded photo');
  const alpha = made(work.alpha, 'subject mask');
  const style = { shadow: work.plan.shadow, light: false, color: false, polish: false };
  return { ...work, layers: await cutOut(photo, alpha, style, limits) };
};

/** The cut-out placed on the canvas, standing on the scene's floor line (only scaled). */
const placeSubject: CompositionStep = async function placeSubject(_context, work) {
  const alpha = made(work.alpha, 'subject mask');
  const layers = made(work.layers, 'cut-out layers');
  const subject = subjectBounds(alpha) ?? { left: 0, top: 0, width: alpha.width, height: alpha.height };
  return { ...work, placed: await reframe(layers, sceneFrame(subject, work.plan), work.plan.canvas) };
};

/** The backdrop behind the placed product: whatever paints it never repaints the product. */
const paintBackdrop: CompositionStep = async function paintBackdrop(_context, work) {
  return { ...work, backdrop: await work.painter(made(work.placed, 'placed cut-out'), work.plan.canvas) };
};

/** The product composited over the backdrop. */
const compositeScene: CompositionStep = async function compositeScene({ limits }, work) {
  const placed = made(work.placed, 'placed cut-out');
  const backdrop = made(work.backdrop, 'backdrop');
  return { ...work, scene: await limits.engine.run('compositeOnImage', [placed, backdrop], [placed, backdrop]) };
};

/** Encode with the thumbnail. */
const encodeResult: SceneStep = async function encodeResult({ choices }, work) {
  return {
    ...work,
    encoded: await encodeImage(made(work.scene, 'scene'), { ...choices.output, carried: choices.carried }),
  };
};

/**
 * A product in a scene: cut out of its photo with its shadow, placed on the canvas standing on
 * the scene's floor line, and composited over the backdrop. The product's pixels are always the
 * photo's own (only scaled): whatever paints the backdrop never repaints the product.
 */
export const SCENE_COMPOSITION: readonly CompositionStep[] = [
  cutOutSubject,
  placeSubject,
  paintBackdrop,
  compositeScene,
];

/** One scene, in this order. */
export const SCENE_STEPS: readonly SceneStep[] = [decodeSource, segmentSubject, ...SCENE_COMPOSITION, encodeResult];

const NOTHING_MADE = {
  photo: null,
  alpha: null,
  layers: null,
  placed: null,
  backdrop: null,
  scene: null,
  encoded: null,
};

/**
 * The backdrop is the provider's, else the variant's studio backdrop, each with its floor line;
 * the canvas is planned from the request and the photo's planned size.
 */
export const SCENE_PIPELINE: ToolPipeline<SceneContext, SceneWork> = {
  start: ({ source, request, dependencies: { provider }, limits, choices: { variant } }) => {
    const studio = studioBackdropFor(variant);
    return {
      plan: {
        canvas: sceneCanvas(request, photoPlan(source, SCENE_PHOTO_LONG_SIDE).scaled),
        shadow: shadowStyle(request.shadow, variant),
        floorLine: provider ? PROVIDER_FLOOR_LINE : studio.floorLine,
        variant,
      },
      painter: provider
        ? providerBackdrop(provider, request.prompt, limits)
        : (_placed, size) => renderStudioBackdrop(studio, size),
      ...NOTHING_MADE,
    };
  },
  steps: SCENE_STEPS,
  result: ({ encoded }) => made(encoded, 'encoded image'),
};

/** SCENE_COMPOSITION over a photo and its subject's mask: the scene before encoding. */
export async function composeScene(
  photo: RawImage,
  alpha: AlphaMask,
  plan: ScenePlan,
  painter: BackdropPainter,
  limits: PipelineLimits,
): Promise<RawImage> {
  const work = { ...NOTHING_MADE, plan, painter, photo, alpha };
  return made((await runSteps(SCENE_COMPOSITION, { limits, signal: limits.signal }, work)).scene, 'scene');
}

/**
 * The provider paints the scene around the placed product: it is sent the product alone on a
 * transparent canvas with a mask that keeps the product, and whatever it returns is fitted to
 * the canvas; the product is composited over it from the photo's own pixels afterwards.
 */
function providerBackdrop(
  provider: ImageProvider,
  prompt: string,
  { signal, engine }: PipelineLimits,
): BackdropPainter {
  return async (placed, size) => {
    const subject = await engine.run('composite', [{ ...placed, shadow: null }, null]);
    const [image, mask] = await Promise.all([providerPng(subject), keepMaskPng(placed.alpha)]);
    const painted = await provider.edit({ image, mask, prompt, shape: shapeFor(size) }, signal);
    return coverTo(painted, size);
  };
}
