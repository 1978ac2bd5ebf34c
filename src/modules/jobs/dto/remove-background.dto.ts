import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, Max, Min } from 'class-validator';
import { BackdropOptionsDto } from './backdrop.dto';
import { HexColor, NestedObject, OptionalWithDefault, OutputOptionsDto, SHADOWS, WebhookUrl } from './shared.dto';
import { ExistingAlphaChoice, type ExistingAlphaChoiceValue } from './existing-alpha.dto';
import { SegmentationModelChoice } from './segmentation-model.dto';
import { PLACEMENT_DESCRIPTION, PLACEMENT_EXAMPLE, PlacementDto } from './placement.dto';
import { RecutInputImageDto, RecutInputImages } from './recut-input.dto';

export const REMOVED_BACKGROUNDS = ['transparent', 'white', 'color', 'image', 'blur'] as const;
/** What a cut-out result holds: the product on its background, or its alpha mask alone (remove.bg's `channels`). */
export const CUTOUT_CHANNELS = ['rgba', 'alpha'] as const;
export type CutoutChannels = (typeof CUTOUT_CHANNELS)[number];

export class RemovedBackgroundDto extends BackdropOptionsDto {
  @ApiPropertyOptional({
    enum: REMOVED_BACKGROUNDS,
    default: 'transparent',
    description:
      "`transparent`, `white`, a `color`, a photo of yours (`image`, with `image_url`), or the photo's own " +
      'background blurred behind the product (`blur`).',
  })
  @OptionalWithDefault()
  @IsIn(REMOVED_BACKGROUNDS)
  type?: (typeof REMOVED_BACKGROUNDS)[number];

  /** Required when `type` is `color`; with `image` and `fit` `contain`, what the photo is shown on. */
  @HexColor()
  color?: string;

  @ApiPropertyOptional({
    enum: SHADOWS,
    default: 'none',
    description:
      "`soft`: a contact shadow made of the product's footprint; `natural`: that plus its silhouette cast on the " +
      'floor. Drawn beneath the product, never on it; black at its opacity on a transparent background. ' +
      '`number_of_images` variants differ only in this light (without a shadow they are identical).',
  })
  @OptionalWithDefault()
  @IsIn(SHADOWS)
  shadow?: (typeof SHADOWS)[number];
}

export class CutoutOutputDto extends OutputOptionsDto {
  @ApiPropertyOptional({
    description:
      'Crop the result to the subject and its shadow, with `margin_percent` of its longer side on every side.',
  })
  @OptionalWithDefault()
  @IsBoolean()
  crop_to_subject?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 40 })
  @OptionalWithDefault()
  @IsInt()
  @Min(0)
  @Max(40)
  margin_percent?: number;

  @ApiPropertyOptional({
    enum: CUTOUT_CHANNELS,
    default: 'rgba',
    description:
      '`rgba`: the cut-out itself. `alpha`: its alpha mask alone, as a one-channel (greyscale) PNG of the size the ' +
      "`rgba` result would have (the source's, unless `crop_to_subject` reframes it), equal to that result's alpha " +
      'channel: 255 product, 0 background. `alpha` needs `format` `png` (the default), a transparent background and ' +
      'no shadow (anything else is a 400); its thumbnail is the mask in grey. Costs the same as a cut-out.',
  })
  @OptionalWithDefault()
  @IsIn(CUTOUT_CHANNELS)
  channels?: CutoutChannels;
}

export class RemoveBackgroundRequestDto {
  @ApiProperty({ type: [RecutInputImageDto], minItems: 1, maxItems: 20 })
  @RecutInputImages()
  input!: RecutInputImageDto[];

  @ApiPropertyOptional({ type: RemovedBackgroundDto })
  @NestedObject(() => RemovedBackgroundDto)
  background?: RemovedBackgroundDto;

  @ApiPropertyOptional({ type: CutoutOutputDto })
  @NestedObject(() => CutoutOutputDto)
  output?: CutoutOutputDto;

  @ApiPropertyOptional({
    type: PlacementDto,
    example: PLACEMENT_EXAMPLE,
    description:
      `${PLACEMENT_DESCRIPTION} Not with \`output.crop_to_subject\` or \`output.margin_percent\`, nor with a ` +
      "`blur` background (which keeps the photo's own frame); a background photo is fitted to the canvas. With " +
      '`channels` `alpha` the mask is placed alike.',
  })
  @NestedObject(() => PlacementDto)
  placement?: PlacementDto;

  @ExistingAlphaChoice(
    "Priced as an image edit (the `image_editing` tool's price; `GET /tools` lists it under this tool's " +
      '`option_prices`), not as a cut-out. No `subject_hints` with `use`: nothing is segmented.',
  )
  existing_alpha?: ExistingAlphaChoiceValue;

  @SegmentationModelChoice('Not with `existing_alpha` `use`, which segments nothing.')
  segmentation_model?: string;

  @WebhookUrl()
  webhook_url?: string;
}
