import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { DEFAULT_BLUR } from '../../tools/shared/cutout-style';
import { MAX_URL_LENGTH, NestedObject, OptionalWithDefault, SourceUrl } from './shared.dto';

export const BACKDROP_FITS = ['cover', 'contain'] as const;
export const BLUR_MODES = ['gaussian', 'bokeh'] as const;

export class BackgroundBlurDto {
  @ApiPropertyOptional({
    enum: BLUR_MODES,
    default: DEFAULT_BLUR.mode,
    description:
      '`gaussian`: a smooth blur. `bokeh`: a lens-like disc blur in which highlights open into bright discs.',
  })
  @OptionalWithDefault()
  @IsIn(BLUR_MODES)
  mode?: (typeof BLUR_MODES)[number];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: DEFAULT_BLUR.strength,
    example: 60,
    description:
      "How far the background is blurred: the blur's radius is strength / 100 x 4 % of the photo's longer side " +
      '(a disc of that radius for `bokeh`, a gaussian of half that sigma), so 50 on a 2000 px photo is 40 px.',
  })
  @OptionalWithDefault()
  @IsInt()
  @Min(1)
  @Max(100)
  strength?: number;
}

/**
 * The members a background takes beside its `type`, `color` and `shadow` when it is a photo
 * (`image`) or the photo's own background blurred (`blur`); which go with which type is checked
 * by the job request (job-request.ts), at the member's own path.
 */
export class BackdropOptionsDto {
  @ApiPropertyOptional({
    format: 'uri',
    maxLength: MAX_URL_LENGTH,
    example: 'https://cdn.example.com/backgrounds/marble.jpg',
    description:
      'With `type` `image` (and only then, where it is required): the background photo, an http or https URL ' +
      'fetched with the same rules, limits and deadline as sources, or an `upload://` URL of your own. Fetched ' +
      'once per job however many results use it; oriented and converted to sRGB like a source. A background that ' +
      'cannot be fetched or decoded fails the result with `background_fetch_failed`, `background_blocked`, ' +
      '`background_too_large` or `background_not_image`, and its credits are released.',
  })
  @IsOptional()
  @SourceUrl()
  image_url?: string;

  @ApiPropertyOptional({
    enum: BACKDROP_FITS,
    default: 'cover',
    description:
      'With `type` `image`: `cover` fills the result with the photo and cuts the overflow, centred; `contain` shows ' +
      'it whole, centred, on `color` (white when no colour is given).',
  })
  @IsOptional()
  @IsIn(BACKDROP_FITS)
  fit?: (typeof BACKDROP_FITS)[number];

  @ApiPropertyOptional({
    type: BackgroundBlurDto,
    example: { mode: 'bokeh', strength: 60 },
    description:
      "With `type` `blur`: the photo's own background kept behind the sharp product and blurred. The product is " +
      'taken out of the background first (its place filled from the background around it), so no halo of it is ' +
      "smeared into the blur. Keeps the photo's own frame: no `crop_to_subject`.",
  })
  @NestedObject(() => BackgroundBlurDto)
  blur?: BackgroundBlurDto;
}
