import { opaqueColour, WHITE } from '../../../engine/compose/colour';
import type { ShadowKind, ShadowStyle } from '../../../engine/compose/shadow';
import type { Rgba } from '../../../engine/raw-image';
import type { BackdropFit } from '../../../engine/compose/backdrop';
import type { BackgroundBlur } from '../../../engine/compose/blurred-background';
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

/**
 * A background photo or blur as a request names it: the photo by its URL (the pipeline loads it,
 * see BackdropSource), fitted and padded as asked; a blur as stored.
 */
export type BackdropRequest =
  { kind: 'photo'; url: string; fit: BackdropFit; pad: Rgba } | { kind: 'blur'; blur: BackgroundBlur };

/** A medium gaussian: what `blur` means without its members (also the create requests' default). */
export const DEFAULT_BLUR: BackgroundBlur = { mode: 'gaussian', strength: 50 };

/** The photo or blur a stored background asks for, or null for a colour or transparency. */
export function backdropOf(option: StoredBackground | undefined): BackdropRequest | null {
  if (option?.type === 'image' && option.image_url) {
    return {
      kind: 'photo',
      url: option.image_url,
      fit: option.fit ?? 'cover',
      pad: option.color ? opaqueColour(option.color) : WHITE,
    };
  }
  if (option?.type === 'blur') {
    return {
      kind: 'blur',
      blur: { mode: option.blur?.mode ?? DEFAULT_BLUR.mode, strength: option.blur?.strength ?? DEFAULT_BLUR.strength },
    };
  }
  return null;
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
