import type { FieldError } from '../../../core/errors/domain-error';
import type { StoredBackground } from '../../tools/tool-options';
import { DEFAULT_BLUR } from '../../tools/shared/cutout-style';

/** A background as the DTOs give it, before defaults. */
type GivenBackground = {
  type?: string;
  image_url?: string;
  fit?: StoredBackground['fit'];
  blur?: StoredBackground['blur'];
};

/**
 * A photo needs its URL; the URL and `fit` go only with a photo, `blur` only with a blur: a
 * member the type would ignore is refused at its own path rather than dropped without a word.
 */
export function backdropProblems(path: string, background: GivenBackground | undefined): FieldError[] {
  if (!background) return [];
  const photo = background.type === 'image';
  const problems: Array<FieldError | false> = [
    photo &&
      !background.image_url && { path: `${path}.image_url`, message: 'image_url is required when type is image' },
    !photo &&
      background.image_url !== undefined && {
        path: `${path}.image_url`,
        message: 'image_url is only allowed when type is image',
      },
    !photo &&
      background.fit !== undefined && { path: `${path}.fit`, message: 'fit is only allowed when type is image' },
    background.type !== 'blur' &&
      background.blur !== undefined && { path: `${path}.blur`, message: 'blur is only allowed when type is blur' },
  ];
  return problems.filter((problem): problem is FieldError => problem !== false);
}

/**
 * What a blur keeps the photo's frame against: a crop around the subject (or any other move of
 * it) would need background the photo does not have.
 */
export function blurFrameProblem(path: string, background: GivenBackground | undefined): FieldError[] {
  return background?.type === 'blur'
    ? [{ path, message: "a blurred background keeps the photo's own frame; leave it out with type blur" }]
    : [];
}

/** The stored background: a photo's fit and a blur's members with their defaults. */
export function withBackdropDefaults<B extends GivenBackground>(background: B): B {
  if (background.type === 'image') return { ...background, fit: background.fit ?? 'cover' };
  if (background.type !== 'blur') return background;
  const blur = {
    mode: background.blur?.mode ?? DEFAULT_BLUR.mode,
    strength: background.blur?.strength ?? DEFAULT_BLUR.strength,
  };
  return { ...background, blur };
}

/** A source that is its own mask (`existing_alpha` `use`) is already cut out: it has no background to blur. */
export function existingAlphaBlurProblem(
  existingAlpha: string | undefined,
  background: GivenBackground | undefined,
): FieldError[] {
  return existingAlpha === 'use' && background?.type === 'blur'
    ? [
        {
          path: 'existing_alpha',
          message: 'existing_alpha use takes a source that is already cut out: it has no background of its own to blur',
        },
      ]
    : [];
}
