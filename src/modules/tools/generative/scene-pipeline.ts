import { shapeFor } from '../../../core/image/aspect-ratio';
import { reframe, type CutoutLayers, type Frame } from '../../../engine/compose/cutout-layers';
import type { ShadowStyle } from '../../../engine/compose/shadow';
import { renderStudioBackdrop, studioBackdropFor } from '../../../engine/compose/studio-backdrop';
import type { GeometryPlan } from '../../../core/image/geometry';
import { subjectBounds, type AlphaMask } from '../../../engine/mask/alpha-mask';
import type { SubjectHints } from '../../../engine/mask/subject-hints';
import type { RawImage, Size } from '../../../core/image/raw-image';
import type { SourceImage } from '../../../core/image/source-image';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { cutOut } from '../shared/cut-out';
import { shadowStyle } from '../shared/cutout-style';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import type { PipelineLimits } from '../shared/pipeline-limits';
import { decodePhoto } from '../shared/photo-decoding';
import { coverTo, keepMaskPng, providerPng } from '../../../core/image/provider-images';
import type { OutputFormat } from '../../../core/image/output-format';
import type { FileChoices } from '../tool-runner';
import type { SceneRequest } from './generative-request';

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

/**
 * A product in a scene: cut out of its photo with its shadow, placed on the canvas standing on
 * the scene's floor line, and composited over the backdrop. The product's pixels are always the
 * photo's own (only scaled): whatever paints the backdrop never repaints the product.
 */
export async function composeScene(
  photo: RawImage,
  alpha: AlphaMask,
  plan: ScenePlan,
  paintBackdrop: BackdropPainter,
  limits: PipelineLimits,
): Promise<RawImage> {
  const layers = await cutOut(photo, alpha, { shadow: plan.shadow, light: false, color: false, polish: false }, limits);
  const subject = subjectBounds(alpha) ?? { left: 0, top: 0, width: photo.width, height: photo.height };
  const placed = await reframe(layers, sceneFrame(subject, plan), plan.canvas);
  limits.signal?.throwIfAborted();
  const backdrop = await paintBackdrop(placed, plan.canvas);
  limits.signal?.throwIfAborted();
  return limits.engine.run('compositeOnImage', [placed, backdrop], [placed, backdrop]);
}

/**
 * The provider paints the scene around the placed product: it is sent the product alone on a
 * transparent canvas with a mask that keeps the product, and whatever it returns is fitted to
 * the canvas; the product is composited over it from the photo's own pixels afterwards.
 */
function providerBackdrop(
  provider: ImageProvider,
  prompt: string,
  { signal, engine }: PipelineLimits & { signal: AbortSignal },
): BackdropPainter {
  return async (placed, size) => {
    const subject = await engine.run('composite', [{ ...placed, shadow: null }, null]);
    const [image, mask] = await Promise.all([providerPng(subject), keepMaskPng(placed.alpha)]);
    const painted = await provider.edit({ image, mask, prompt, shape: shapeFor(size) }, signal);
    return coverTo(painted, size);
  };
}

/** One scene result: what it asks for, where on which canvas, and in which format. */
export interface SceneJob {
  request: SceneRequest;
  canvas: Size;
  variant: number;
  hints: SubjectHints;
  format: OutputFormat;
  file: FileChoices;
}

/** What a scene runs with: the segmenter, and the provider that paints its backdrop (the studio's without one). */
export interface ScenePainters {
  segmenter: Segmenter;
  provider: ImageProvider | null;
}

/**
 * One scene, in order: decode the photo at `plan`'s size; segment it (keeping to the client's
 * hints); choose the backdrop (the provider's, else the variant's studio backdrop, each with its
 * floor line); composeScene; encode with the thumbnail.
 */
export async function runScene(
  source: SourceImage,
  plan: GeometryPlan,
  job: SceneJob,
  { segmenter, provider }: ScenePainters,
  limits: PipelineLimits & { signal: AbortSignal },
): Promise<EncodedImage> {
  const photo = await decodePhoto(source, plan, limits);
  const { mask: alpha } = await segmenter.segment(photo, limits.signal, job.hints);
  const studio = studioBackdropFor(job.variant);
  const painter: BackdropPainter = provider
    ? providerBackdrop(provider, job.request.prompt, limits)
    : (_placed, size) => renderStudioBackdrop(studio, size);
  const floorLine = provider ? PROVIDER_FLOOR_LINE : studio.floorLine;
  const scene = {
    canvas: job.canvas,
    shadow: shadowStyle(job.request.shadow, job.variant),
    floorLine,
    variant: job.variant,
  };
  return encodeImage(await composeScene(photo, alpha, scene, painter, limits), {
    format: job.format,
    file: job.file,
    source,
  });
}
