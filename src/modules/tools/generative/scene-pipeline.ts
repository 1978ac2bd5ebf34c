import { compositeOnImage } from '../../../core/image/compose/composite';
import { reframe, type CutoutLayers, type Frame } from '../../../core/image/compose/cutout-layers';
import { subjectBounds, type AlphaMask } from '../../../core/image/mask/alpha-mask';
import type { RawImage, Size } from '../../../core/image/raw-image';
import { cutOut } from '../shared/cut-out';
import type { ShadowStyle } from '../../../core/image/compose/shadow';
import type { PipelineLimits } from '../shared/pipeline-limits';

/** The subject's bounding box fills this share of the canvas along its tighter side: room for the scene around it. */
const SUBJECT_FILL = 0.62;

/**
 * Where each variant stands the subject across the canvas (its centre, as a share of the
 * width): the variants of one source differ in layout as well as in backdrop.
 */
const VARIANT_CENTRES = [0.5, 0.4, 0.6, 0.45, 0.55];

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
  return compositeOnImage(placed, backdrop);
}
