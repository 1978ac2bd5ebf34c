import type { ShadowStyle } from '../../../engine/compose/shadow';
import type { ResizeRequest } from '../../../core/image/geometry';
import type { SharpenStrength } from '../../../engine/filters';
import { ProductPhotoOperation } from '../../catalog/product-photo-presets';
import type { CanvasLayout } from '../../../engine/compose/framing';
import { canvasLayoutOf } from '../shared/canvas-placement';
import {
  backdropOf,
  backgroundOf,
  shadowStyle,
  type BackdropRequest,
  type CutoutBackground,
} from '../shared/cutout-style';
import {
  cutsSubjectOut,
  isProductPhoto,
  type EditOperations,
  type ImageEditOptions,
  type ProductPhotoOptions,
} from '../tool-options';
import type { ResultChoices } from '../shared/tool-steps';
import { variantOf, type TypedToolTask } from '../tool-runner';

/**
 * How the `number_of_images` variants of one source differ. Each row changes only what an
 * operation the request asked for controls; a request none of them touch (a plain `contain`
 * resize, say) gives identical variants.
 */
export interface EditVariant {
  /** Moves the key (median brightness) of `light` by this fraction of the range. */
  brightnessOffset: number;
  /** Added to the saturation factor of `color`. */
  saturationOffset: number;
  /** Multiplies the sharpening of `polish` and of an enlargement by resampling. */
  sharpening: number;
  /** Which of the distinct most interesting windows `crop` cuts (0 is the most interesting). */
  cropRank: number;
}

export const EDIT_VARIANTS: readonly EditVariant[] = [
  { brightnessOffset: 0, saturationOffset: 0, sharpening: 1, cropRank: 0 },
  { brightnessOffset: 0.06, saturationOffset: 0.05, sharpening: 0.8, cropRank: 1 },
  { brightnessOffset: -0.04, saturationOffset: 0.1, sharpening: 1.3, cropRank: 2 },
  { brightnessOffset: 0.03, saturationOffset: -0.05, sharpening: 0.6, cropRank: 3 },
];

/** How a result's variant (ResultChoices `variant`) differs; the first row's for a variant past the table. */
export function editVariantOf({ variant }: Pick<ResultChoices, 'variant'>): EditVariant {
  return EDIT_VARIANTS[variant] ?? EDIT_VARIANTS[0];
}

/**
 * The `background` operation: the subject cut out onto `background` (a colour, or null for
 * transparent) or kept on its own photo (`original`, with a shadow only), with its shadow.
 */
export interface EditCutout {
  background: CutoutBackground | 'original';
  /** A background photo fitted to the image, or the image's own background blurred; null for neither. */
  backdrop: BackdropRequest | null;
  shadow: ShadowStyle;
  /** `existing_alpha` `use`: the source's own alpha is the mask, and nothing is segmented. */
  existingAlpha: boolean;
  /** The segmentation model the request names; null for the default model. */
  model: string | null;
  /** `placement`: the cut-out on a canvas; null keeps the photo's frame. */
  placement: CanvasLayout | null;
}

/**
 * One result's edit, whatever endpoint asked for it. The result's format, file choices, hints and
 * variant are its ResultChoices, beside the request in the pipeline's context (see editVariantOf).
 */
export interface EditRequest {
  resize: ResizeRequest;
  /** Null when the photo keeps its background and gets no shadow: nothing is cut out. */
  cutout: EditCutout | null;
  light: boolean;
  color: boolean;
  polish: boolean;
  /** Why this request cannot be done on this deployment, or null. */
  unsupported: string | null;
}

function cutoutOf(
  { background, placement }: EditOperations,
  variant: number,
  existingAlpha: boolean,
  model: string | null,
): EditCutout | null {
  if (!background || !cutsSubjectOut(background)) return null;
  const type = background.type ?? 'original';
  return {
    background: type === 'original' ? 'original' : backgroundOf(background),
    backdrop: backdropOf(background),
    shadow: shadowStyle(background.shadow ?? 'none', variant),
    // The create request allows `use` only with a background that replaces the photo's.
    existingAlpha: existingAlpha && type !== 'original',
    model,
    placement: placement ? canvasLayoutOf(placement) : null,
  };
}

function fromOperations(
  operations: EditOperations,
  variant: number,
  existingAlpha = false,
  model: string | null = null,
): EditRequest {
  return {
    resize: {
      width: operations.resizing?.width,
      height: operations.resizing?.height,
      fit: operations.resizing?.fit,
      upscale: operations.restorations?.upscale === true,
    },
    cutout: cutoutOf(operations, variant, existingAlpha, model),
    light: operations.adjustments?.light === true,
    color: operations.adjustments?.color === true,
    polish: operations.restorations?.polish === true,
    unsupported: null,
  };
}

/**
 * `product_photo_enhance` on a preset that keeps the photo's background: relight, correct
 * colour and polish, then the preset's size (fitted inside it) and format. The operations that
 * cut the product out are CutoutRequests (see productPhotoCutout).
 */
function fromProductPhoto({ operation, preset }: ProductPhotoOptions): EditRequest {
  const edit = fromOperations(
    {
      adjustments: { light: true, color: true },
      restorations: { polish: true },
      resizing:
        preset?.width && preset.height ? { width: preset.width, height: preset.height, fit: 'contain' } : undefined,
    },
    // A product photo job makes one image per source.
    0,
  );
  if (operation !== ProductPhotoOperation.ProductPhotoEnhance) {
    return { ...edit, unsupported: `The ${operation} operation does not run on the image editing tool.` };
  }
  return edit;
}

/**
 * The edit of a task on the image editing tool's pipeline: `POST /image/edit`, or `product_photo_enhance` keeping its
 * background.
 */
export function editRequestOf(
  task: Pick<TypedToolTask, 'index'> & { options: ImageEditOptions | ProductPhotoOptions },
): EditRequest {
  const { options } = task;
  if (isProductPhoto(options)) return fromProductPhoto(options);
  return fromOperations(
    options.operations,
    variantOf(task),
    options.existing_alpha === 'use',
    options.segmentation_model ?? null,
  );
}

/**
 * Sharpening after an enlargement, after denoising, or both (the stronger wins). `enlargement` is
 * what resampling alone enlarged by: 1 when the super-resolution model enlarged, whose output has
 * its detail restored and would only gain halos from more.
 */
export function sharpeningOf(request: EditRequest, variant: EditVariant, enlargement: number): SharpenStrength | null {
  const strengths: number[] = [];
  if (request.polish) strengths.push(1.5);
  if (request.resize.upscale && enlargement > 1) strengths.push(Math.min(3, 1 + enlargement / 2));
  if (strengths.length === 0) return null;
  return {
    sigma: Math.max(0.8, Math.min(1.5, 0.6 * enlargement)),
    edgeGain: Math.max(...strengths) * variant.sharpening,
  };
}
