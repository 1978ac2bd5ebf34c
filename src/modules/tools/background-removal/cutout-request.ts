import { opaqueColour, WHITE } from '../../../core/image/compose/colour';
import type { Placement } from '../../../core/image/compose/framing';
import type { ShadowKind, ShadowStyle } from '../../../core/image/compose/shadow';
import type { SubjectHints } from '../../../core/image/mask/subject-hints';
import type { Rgba } from '../../../core/image/pipeline-steps';
import { ProductPhotoOperation, type ProductPhotoPreset } from '../../catalog/product-photo-presets';
import type { CutoutChannels } from '../../jobs/dto/remove-background.dto';
import { variantOf, type OutputFormat, type ToolTask } from '../tool-runner';

/** A background the subject is cut out onto: a colour, or null for transparent. */
export type CutoutBackground = Rgba | null;

/**
 * How the `number_of_images` variants of one source differ: only the light that draws the
 * shadow changes (its spread, and for `natural` the side it falls to). Without a shadow the
 * variants are identical: the cut-out itself is the model's one answer.
 */
export const SHADOW_VARIANTS: readonly Omit<ShadowStyle, 'kind'>[] = [
  { spread: 1, lean: 0.6 },
  { spread: 1.3, lean: -0.6 },
  { spread: 0.8, lean: 1 },
  { spread: 1.15, lean: -0.3 },
];

export function shadowStyle(kind: ShadowKind, variant: number): ShadowStyle {
  return { kind, ...(SHADOW_VARIANTS[variant] ?? SHADOW_VARIANTS[0]) };
}

/** One cut-out result, whatever endpoint asked for it. */
export interface CutoutRequest {
  background: CutoutBackground;
  shadow: ShadowStyle;
  placement: Placement;
  /** Corrections applied to the product's own pixels (product photos' preservation level). */
  light: boolean;
  color: boolean;
  polish: boolean;
  format: OutputFormat;
  /** `rgba` the cut-out, `alpha` its mask alone (a one-channel PNG; no background colour, no shadow). */
  channels: CutoutChannels;
  /** Where the client says the product is, in fractions of the source image. */
  hints: SubjectHints;
}

/** A background option as the DTOs store it (`type` and, for `color`, the colour). */
export function backgroundOf(option: { type?: string; color?: string } | undefined): CutoutBackground {
  switch (option?.type) {
    case 'white':
      return WHITE;
    case 'color':
      return opaqueColour(option.color as string);
    default:
      return null;
  }
}

interface RemoveBackgroundOptions {
  background: { type: string; color?: string; shadow: ShadowKind };
  /** `channels` is absent from jobs created before masks were offered. */
  output: { crop_to_subject: boolean; margin_percent: number; channels?: CutoutChannels };
}

function fromRemoveBackground(task: ToolTask): CutoutRequest {
  const { background, output } = task.options as unknown as RemoveBackgroundOptions;
  return {
    background: backgroundOf(background),
    shadow: shadowStyle(background.shadow, variantOf(task)),
    placement: output.crop_to_subject ? { kind: 'crop', marginPercent: output.margin_percent } : { kind: 'source' },
    light: false,
    color: false,
    polish: false,
    format: task.format,
    channels: output.channels ?? 'rgba',
    hints: task.subjectHints,
  };
}

/** Product photo cut-outs: the product's share of the frame on a canvas, as each operation promises. */
const MARKETPLACE_FILL = 0.85;
const PACKSHOT_FILL = 0.8;
/** A packshot or marketplace image without a preset: the square most marketplaces accept for zoom. */
const SQUARE = { width: 2000, height: 2000 };

type PreservationLevel = 'strict' | 'balanced' | 'creative';

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
export function productPhotoCutout(options: Record<string, unknown>, format: OutputFormat, hints: SubjectHints): CutoutRequest | null {
  const operation = options.operation as ProductPhotoOperation;
  const preset = options.preset as ProductPhotoPreset | null;
  const level = (options.preservation_level as PreservationLevel | undefined) ?? 'strict';
  const canvas = (fill: number, fallback: { width: number; height: number } | null): Placement => {
    const size = preset?.width && preset.height ? { width: preset.width, height: preset.height } : fallback;
    return size ? { kind: 'canvas', ...size, fill } : { kind: 'source' };
  };
  const base = { format, channels: 'rgba' as const, hints, shadow: shadowStyle('none', 0), ...corrections(level) };
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

export function cutoutRequestOf(task: ToolTask): CutoutRequest | null {
  if (typeof task.options.operation === 'string') return productPhotoCutout(task.options, task.format, task.subjectHints);
  return fromRemoveBackground(task);
}
