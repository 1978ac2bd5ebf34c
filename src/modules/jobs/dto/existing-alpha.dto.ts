import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { CLEARLY_OPAQUE, CLEARLY_TRANSPARENT, MEANINGFUL_SHARE } from '../../../engine/mask/existing-alpha';
import { OptionalWithDefault } from './shared.dto';

const SHARE = `${MEANINGFUL_SHARE * 100} %`;

export const EXISTING_ALPHA_CHOICES = ['ignore', 'use'] as const;
export type ExistingAlphaChoiceValue = (typeof EXISTING_ALPHA_CHOICES)[number];

/**
 * `existing_alpha`: a source that is already cut out (a PNG or WebP with transparency) used as its own mask
 * instead of being segmented again (Photoroom's `keepExistingAlphaChannel`).
 */
export const ExistingAlphaChoice = (where: string) =>
  applyDecorators(
    ApiPropertyOptional({
      enum: EXISTING_ALPHA_CHOICES,
      default: 'ignore',
      example: 'use',
      description:
        '`ignore`: any transparency of the source is flattened onto white and the subject is segmented, as for any ' +
        "photo. `use`: the source's own alpha channel is the subject's mask, carried into the result exactly; " +
        `nothing is segmented and the uncertainty is 0. The source must have meaningful transparency (at least ` +
        `${SHARE} of its pixels with alpha <= ${CLEARLY_TRANSPARENT} and at least ${SHARE} with alpha >= ` +
        `${CLEARLY_OPAQUE}); one without (a JPEG, an RGBA ` +
        'file opaque everywhere, a nearly empty one) fails its result with `source_not_transparent`, credits ' +
        `released. ${where}`,
    }),
    OptionalWithDefault(),
    IsIn(EXISTING_ALPHA_CHOICES),
  );
