import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { BackdropOptionsDto } from './backdrop.dto';
import { HexColor, NestedObject, OutputOptionsDto, SHADOWS, WebhookUrl } from './shared.dto';
import { ExistingAlphaChoice, type ExistingAlphaChoiceValue } from './existing-alpha.dto';
import { SegmentationModelChoice } from './segmentation-model.dto';
import { PLACEMENT_DESCRIPTION, PLACEMENT_EXAMPLE, PlacementDto } from './placement.dto';
import { CutoutInputImageDto, CutoutInputImages } from './subject-hints.dto';

export const EDIT_BACKGROUNDS = ['original', 'transparent', 'white', 'color', 'image', 'blur'] as const;
export const RESIZE_FITS = ['contain', 'cover', 'crop'] as const;

export class AdjustmentsDto {
  @ApiPropertyOptional({
    description:
      'Exposure, measured on the photo and applied as one smooth curve in linear light (hue kept, nothing ' +
      'clipped): an underexposed photo is lifted until its brightest detail is a light grey (at most 4 output ' +
      'levels per source level, so noise stays moderate); a washed-out one (no shadows, midtones crowded at the ' +
      'top, no white studio background) is pulled down; a photo within the normal ranges is left exactly as it is.',
  })
  @IsOptional()
  @IsBoolean()
  light?: boolean;

  @ApiPropertyOptional({
    description:
      "White balance from the photo's greys (a grey card, a white backdrop or print), among the colours real " +
      'light has (tungsten to blue shade): a cast is undone in linear light, so a grey under it comes out neutral; ' +
      'a photo with nothing grey in it (a red product) is left alone, and a clipped white stays white. Then a mild ' +
      'saturation boost for dull photos.',
  })
  @IsOptional()
  @IsBoolean()
  color?: boolean;
}

export class EditBackgroundDto extends BackdropOptionsDto {
  @ApiPropertyOptional({
    enum: EDIT_BACKGROUNDS,
    description:
      'Anything but `original` cuts the subject out and puts it on the new background (`color` takes `color`, ' +
      "`image` a photo of yours by `image_url`, `blur` keeps the photo's own background, blurred); " +
      '`contain` padding uses the same background. `jpg` with `transparent` is refused. On a deployment without ' +
      'background removal such a live result fails with `processing_failed` and its credits are released.',
  })
  @IsOptional()
  @IsIn(EDIT_BACKGROUNDS)
  type?: (typeof EDIT_BACKGROUNDS)[number];

  /** Required when `type` is `color`; with `image` and `fit` `contain`, what the photo is shown on. */
  @HexColor()
  color?: string;

  @ApiPropertyOptional({
    enum: SHADOWS,
    description:
      '`soft`: a contact shadow under the subject; `natural`: that plus the silhouette cast on the floor. Drawn ' +
      "from the subject's mask beneath it, never on it; with `original` the photo's own floor is darkened.",
  })
  @IsOptional()
  @IsIn(SHADOWS)
  shadow?: (typeof SHADOWS)[number];
}

export class ResizingDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 8192 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8192)
  width?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 8192 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8192)
  height?: number;

  @ApiPropertyOptional({
    enum: RESIZE_FITS,
    default: 'contain',
    description:
      'Used when both width and height are given (one alone keeps the aspect ratio). `contain`: fit inside and pad ' +
      'to exactly width x height, centred (white for jpg, transparent for png, webp and avif). `cover`: fill the ' +
      "box and cut the overflow, centred. `crop`: cut exactly width x height at the source's own scale around its " +
      'most interesting region, scaling up only a source smaller than the box. No side is ever above 8192.',
  })
  @IsOptional()
  @IsIn(RESIZE_FITS)
  fit?: (typeof RESIZE_FITS)[number];
}

export class RestorationsDto {
  @ApiPropertyOptional({
    description:
      "Enlarge with a super-resolution model, which restores detail rather than interpolating it: the source's " +
      'own size doubled, or, with `resizing`, the size it asks for. Up to twice the source the x2 model runs, ' +
      'beyond it the x4 model (ESRGAN), then one Lanczos resample to the exact size; nothing is enlarged when ' +
      'the size is not larger than the source. Transparency is kept. The result is never shrunk to fit the ' +
      "limits: a width and height whose product passes the deployment's pixel limit (50 megapixels by " +
      'default) are refused with 400; a result that only the source shows would pass 8192 a side, or whose ' +
      "enlarged image (the model's included) would pass that limit, fails with `source_too_large` and is not " +
      'charged.',
  })
  @IsOptional()
  @IsBoolean()
  upscale?: boolean;

  @ApiPropertyOptional({ description: 'Denoise (noise in flat areas goes down) and sharpen edges.' })
  @IsOptional()
  @IsBoolean()
  polish?: boolean;
}

export class EditOperationsDto {
  @ApiPropertyOptional({ type: AdjustmentsDto }) @NestedObject(() => AdjustmentsDto) adjustments?: AdjustmentsDto;
  @ApiPropertyOptional({ type: EditBackgroundDto })
  @NestedObject(() => EditBackgroundDto)
  background?: EditBackgroundDto;
  @ApiPropertyOptional({ type: ResizingDto }) @NestedObject(() => ResizingDto) resizing?: ResizingDto;
  @ApiPropertyOptional({ type: RestorationsDto }) @NestedObject(() => RestorationsDto) restorations?: RestorationsDto;

  @ApiPropertyOptional({
    type: PlacementDto,
    example: PLACEMENT_EXAMPLE,
    description:
      `${PLACEMENT_DESCRIPTION} Only with a \`background\` of type \`transparent\`, \`white\`, \`color\` or ` +
      '`image` (the product is cut out onto the canvas; a background photo is fitted to the canvas), and not with ' +
      "`resizing`; not with `blur`, which keeps the photo's own frame.",
  })
  @NestedObject(() => PlacementDto)
  placement?: PlacementDto;
}

export class ImageEditRequestDto {
  @ApiProperty({
    type: [CutoutInputImageDto],
    minItems: 1,
    maxItems: 20,
    description: '`subject_hints` only with a `background` operation that cuts the subject out.',
  })
  @CutoutInputImages()
  input!: CutoutInputImageDto[];

  @ApiPropertyOptional({ type: EditOperationsDto })
  @NestedObject(() => EditOperationsDto)
  operations?: EditOperationsDto;

  @ApiPropertyOptional({ type: OutputOptionsDto })
  @NestedObject(() => OutputOptionsDto)
  output?: OutputOptionsDto;

  @ExistingAlphaChoice(
    '`use` only with `operations.background` of type `transparent`, `white`, `color` or `image` (a 400 otherwise; ' +
      '`blur` is a 400 too: a source already cut out has no background to blur), and without `subject_hints`. ' +
      'Priced as any edit.',
  )
  existing_alpha?: ExistingAlphaChoiceValue;

  @SegmentationModelChoice(
    'Only with an `operations.background` that cuts the subject out (a type other than `original`, or a shadow), ' +
      'and not with `existing_alpha` `use`.',
  )
  segmentation_model?: string;

  @WebhookUrl()
  webhook_url?: string;
}
