import { WHITE } from '../../../engine/compose/colour';
import type { Placement } from '../../../engine/compose/framing';
import type { CutoutComposition } from '../../../engine/cutout-pixels';
import { ProductPhotoOperation } from '../../catalog/product-photo-presets';
import { ToolId } from '../../catalog/tools';
import { canvasLayoutOf } from '../shared/canvas-placement';
import { backdropOf, backgroundOf, shadowStyle, type BackdropRequest } from '../shared/cutout-style';
import {
  isProductPhoto,
  type PreservationLevel,
  type ProductPhotoOptions,
  type RemoveBackgroundOptions,
} from '../tool-options';
import type { OutputFormat } from '../../../core/image/output-format';
import { variantOf, type TypedToolTask } from '../tool-runner';

/**
 * One cut-out result, whatever endpoint asked for it: what the engine composes (its backdrop still
 * to be loaded), and how the mask is made. The result's format, file choices and hints are its
 * ResultChoices, beside the request in the pipeline's context.
 */
export interface CutoutRequest extends Omit<CutoutComposition, 'backdrop' | 'ownEdgeColours'> {
  /** A background photo or a blur of the photo's own background, under the subject instead of `background`. */
  backdrop: BackdropRequest | null;
  /** `existing_alpha` `use`: the source's own alpha is the mask, and nothing is segmented. */
  existingAlpha: boolean;
  /** The segmentation model the request names; null for the default model. */
  model: string | null;
}

function fromRemoveBackground(
  task: Pick<TypedToolTask, 'index'> & { options: RemoveBackgroundOptions },
): CutoutRequest {
  const { background, output, placement } = task.options;
  return {
    background: backgroundOf(background),
    backdrop: backdropOf(background),
    shadow: shadowStyle(background.shadow, variantOf(task)),
    placement: placement
      ? canvasLayoutOf(placement)
      : output.crop_to_subject
        ? { kind: 'crop', marginPercent: output.margin_percent }
        : { kind: 'source' },
    light: false,
    color: false,
    polish: false,
    channels: output.channels ?? 'rgba',
    existingAlpha: task.options.existing_alpha === 'use',
    model: task.options.segmentation_model ?? null,
  };
}

/** Product photo cut-outs: the product's share of the frame on a canvas, as each operation promises. */
const MARKETPLACE_FILL = 0.85;
const PACKSHOT_FILL = 0.8;
/** A packshot or marketplace image without a preset: the square most marketplaces accept for zoom. */
const SQUARE = { width: 2000, height: 2000 };

/**
 * What the product's own pixels may receive: `strict` keeps them as photographed (cut out and
 * scaled only), `balanced` corrects light and colour, `creative` also denoises and sharpens.
 */
function corrections(level: PreservationLevel): Pick<CutoutRequest, 'light' | 'color' | 'polish'> {
  return { light: level !== 'strict', color: level !== 'strict', polish: level === 'creative' };
}

/**
 * The product photo operations that cut the product out, or null for one that does not
 * (`product_photo_enhance` on a preset that keeps the original background).
 */
export function productPhotoCutout(options: ProductPhotoOptions, format: OutputFormat): CutoutRequest | null {
  const { operation, preset } = options;
  const level = options.preservation_level ?? 'strict';
  const canvas = (fill: number, fallback: { width: number; height: number } | null): Placement => {
    const size = preset?.width && preset.height ? { width: preset.width, height: preset.height } : fallback;
    return size ? { kind: 'canvas', ...size, fill } : { kind: 'source' };
  };
  const base = {
    channels: 'rgba' as const,
    backdrop: null,
    existingAlpha: false,
    model: options.segmentation_model ?? null,
    shadow: shadowStyle('none', 0),
    ...corrections(level),
  };
  switch (operation) {
    case ProductPhotoOperation.RemoveBackground:
      return {
        ...base,
        background: preset?.background === 'white' || (!preset && format === 'jpg') ? WHITE : null,
        placement: canvas(MARKETPLACE_FILL, null),
      };
    case ProductPhotoOperation.StudioPackshot:
      return { ...base, background: WHITE, shadow: shadowStyle('soft', 0), placement: canvas(PACKSHOT_FILL, SQUARE) };
    case ProductPhotoOperation.MarketplaceClean:
      return { ...base, background: WHITE, placement: canvas(MARKETPLACE_FILL, SQUARE) };
    case ProductPhotoOperation.ProductPhotoEnhance:
      if (!preset || preset.background === 'original') return null;
      return {
        ...base,
        light: true,
        color: true,
        polish: true,
        background: preset.background === 'white' ? WHITE : null,
        placement: canvas(MARKETPLACE_FILL, null),
      };
    default:
      return null;
  }
}

/**
 * The cut-out a task asks for: `POST /remove-background`, or a product photo operation that cuts
 * the product out; null for any other task.
 */
export function cutoutRequestOf(task: TypedToolTask): CutoutRequest | null {
  if (isProductPhoto(task.options)) return productPhotoCutout(task.options, task.format);
  return task.tool === ToolId.RemoveBackground ? fromRemoveBackground({ ...task, options: task.options }) : null;
}
