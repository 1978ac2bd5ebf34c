import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { MODEL_NAME_PATTERN } from '../../../core/config/config.schema';
import { OptionalWithDefault } from './shared.dto';

/**
 * `segmentation_model`: which of the deployment's segmentation models cuts the subject out
 * (Photoroom's `pr-background-removal-model-version`, Claid's segmentation `version`). Checked
 * against the configured models when the job is created (SegmentationModelChoice).
 */
export const SegmentationModelChoice = (where: string) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      pattern: MODEL_NAME_PATTERN.source,
      example: 'isnet-general-use',
      description:
        'The segmentation model that cuts the subject out: a `name` from `GET /api/v1/tools` ' +
        '(`segmentation_models`); absent, the default model. A name this deployment does not offer is a 400. A ' +
        "model with a price of its own is listed in its tool's `option_prices`; each cut-out reports the model " +
        `and its weights' version in \`segmentation\`. ${where}`,
    }),
    OptionalWithDefault(),
    IsString(),
    Matches(MODEL_NAME_PATTERN, { message: 'segmentation_model must be a model name listed by GET /api/v1/tools' }),
  );
