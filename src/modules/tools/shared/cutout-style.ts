import { opaqueColour, WHITE } from '../../../engine/compose/colour';
import type { ShadowKind, ShadowStyle } from '../../../engine/compose/shadow';
import type { Rgba } from '../../../core/image/pipeline-steps';
import type { StoredBackground } from '../tool-options';

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

/** A background option as the create requests store it (`type` and, for `color`, the colour). */
export function backgroundOf(option: StoredBackground | undefined): CutoutBackground {
  switch (option?.type) {
    case 'white':
      return WHITE;
    case 'color':
      // Validated at create: a `color` background always carries its colour.
      return opaqueColour(option.color as string);
    default:
      return null;
  }
}
