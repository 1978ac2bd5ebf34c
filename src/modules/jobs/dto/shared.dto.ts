import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  isURL,
  IsUrl,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import { OUTPUT_FORMATS, type OutputFormat } from '../../../core/image/output-format';
import { isUploadScheme, uploadIdOf } from '../../../core/uploads/upload-url';
import {
  DEFAULT_FORMAT,
  DEFAULT_METADATA,
  DPI_RANGE,
  METADATA_CHOICES,
  QUALITY_RANGE,
} from '../../catalog/output-options';

export type MetadataOption = (typeof METADATA_CHOICES)[number];
export const SHADOWS = ['none', 'soft', 'natural'] as const;
export const MAX_URL_LENGTH = 2048;
export const HEX_COLOR = /^#[0-9A-Fa-f]{6}$/;
/** `W:H` with W and H whole numbers from 1 to 32. */
export const ASPECT_RATIO = /^([1-9]|[12][0-9]|3[0-2]):([1-9]|[12][0-9]|3[0-2])$/;

const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

/** How every source image URL field is described in the OpenAPI document. */
export const SOURCE_URL_DESCRIPTION =
  'The source image: an http or https URL the worker downloads, or the `image_url` of one of your ' +
  'uploads (`upload://upl_…`, from POST /api/v1/uploads), which the worker reads from storage.';

const isSourceUrl = (value: unknown): boolean =>
  typeof value === 'string' && (isUploadScheme(value) ? uploadIdOf(value) !== null : isURL(value, HTTP_URL));

const sourceUrlProblem = ({ property, value }: ValidationArguments): string =>
  typeof value === 'string' && isUploadScheme(value)
    ? `${property} must be upload://upl_ followed by 24 letters or digits, as POST /uploads returns it`
    : `${property} must be an http or https URL, or an upload:// URL from POST /uploads`;

/**
 * A source image URL: http or https (fetched, and refused at fetch time if private), or an
 * upload's `upload://upl_…` (read from storage by the worker; whose upload it is, and whether it
 * has expired, is the worker's check, so a wrong one fails the result as a missing source does).
 */
export const SourceUrl = () =>
  applyDecorators(
    IsString(),
    MaxLength(MAX_URL_LENGTH),
    ValidateBy({ name: 'isSourceUrl', validator: { validate: isSourceUrl, defaultMessage: sourceUrlProblem } }),
  );

/** An optional nested object: a non-object value is an error at its own path, not ignored. */
export const NestedObject = (type: () => new () => object) =>
  applyDecorators(IsOptional(), IsObject({ message: '$property must be an object' }), ValidateNested(), Type(type));

export const RequiredNestedObject = (type: () => new () => object) =>
  applyDecorators(IsObject({ message: '$property must be an object' }), ValidateNested(), Type(type));

/**
 * An optional member whose default the job request fills in: absent takes the default, while
 * an explicit null is refused, since it would replace the default rather than ask for it.
 */
export const OptionalWithDefault = () => ValidateIf((_object, value: unknown) => value !== undefined);

export const Prompt = () => applyDecorators(IsString(), Length(1, 4000));

export class InputImageDto {
  @ApiProperty({
    format: 'uri',
    maxLength: MAX_URL_LENGTH,
    example: 'https://cdn.example.com/products/123.jpg',
    description: SOURCE_URL_DESCRIPTION,
  })
  @SourceUrl()
  image_url!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Your label, returned with the results.' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  external_id?: string;
}

/** 1 to 20 source images (spec 2.3), each an `item` (an InputImageDto, or one that adds to it). */
export const InputImages = (min = 1, max = 20, item: () => new () => InputImageDto = () => InputImageDto) =>
  applyDecorators(IsArray(), ArrayMinSize(min), ArrayMaxSize(max), ValidateNested({ each: true }), Type(item));

/** `output.quality`: refused with png (lossless) where the job request knows the format (job-request.ts). */
export const OutputQuality = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      ...QUALITY_RANGE,
      example: 80,
      description:
        'Encoder quality for jpg, webp and avif, from 1 (smallest file) to 100 (finest). Without it: 88 for jpg, 85 ' +
        'for webp, 60 for avif. png is lossless: a quality with png, the default format included, is a 400.',
    }),
    IsOptional(),
    IsInt(),
    Min(QUALITY_RANGE.minimum),
    Max(QUALITY_RANGE.maximum),
  );

/** `output.lossless`: webp only, refused with another format or a quality where the job request knows both. */
export const OutputLossless = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'boolean',
      default: false,
      example: true,
      description:
        "A lossless webp: the decoded pixels are exactly the result's. Only with format webp, and without a quality; " +
        'with another format, or with output.quality, it is a 400.',
    }),
    IsOptional(),
    IsBoolean(),
  );

export const OutputDpi = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      ...DPI_RANGE,
      example: 300,
      description:
        'Resolution written into the file, in pixels per inch (the pixels are not resampled): the EXIF resolution ' +
        'in jpg and webp, the pHYs chunk and EXIF in png (a one-channel mask: pHYs only). Such a file has an EXIF ' +
        'block even with metadata `strip`, holding only the resolution, orientation 1, colour space and size. ' +
        "Without it: with metadata `keep` the source's own resolution; otherwise none in jpg and webp, and png's " +
        'pHYs keeps the neutral 1 pixel per millimetre it has always had.',
    }),
    IsOptional(),
    IsInt(),
    Min(DPI_RANGE.minimum),
    Max(DPI_RANGE.maximum),
  );

export const OutputMetadata = () =>
  applyDecorators(
    ApiPropertyOptional({
      enum: METADATA_CHOICES,
      default: DEFAULT_METADATA,
      example: 'keep',
      description:
        "`strip`: nothing of the source is written (no EXIF, XMP or IPTC). `keep`: the source photo's EXIF " +
        'copyright, artist, description, dates, camera, lens and exposure settings, and its XMP packet (dc:rights ' +
        'and the rest), without orientation (the pixels are upright already), GPS position, serial numbers, owner ' +
        'name or embedded thumbnail; EXIF text is written as ASCII. Results made without a source photo ' +
        '(POST /image/generate) have nothing to keep. Every colour result is sRGB and carries an sRGB ICC profile ' +
        'either way.',
    }),
    OptionalWithDefault(),
    IsIn(METADATA_CHOICES),
  );

export class OutputOptionsDto {
  @ApiPropertyOptional({ enum: OUTPUT_FORMATS, default: DEFAULT_FORMAT })
  @IsOptional()
  @IsIn(OUTPUT_FORMATS)
  format?: OutputFormat;

  @OutputQuality()
  quality?: number;

  @OutputLossless()
  lossless?: boolean;

  @OutputDpi()
  dpi?: number;

  @OutputMetadata()
  metadata?: MetadataOption;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 4,
    default: 1,
    description:
      'Images per source image. For POST /image/edit the variants differ in what the requested operations can ' +
      'vary: light and color strength, sharpening, and for `crop` the window (the most interesting ones in turn); ' +
      'a request that only resizes with contain or cover gives identical variants.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(4)
  number_of_images?: number;
}

/** `webhook_url`: HTTPS only (spec section 6). */
export const WebhookUrl = () =>
  applyDecorators(
    ApiPropertyOptional({
      format: 'uri',
      maxLength: MAX_URL_LENGTH,
      description: 'HTTPS URL that receives signed events.',
    }),
    IsOptional(),
    IsString(),
    MaxLength(MAX_URL_LENGTH),
    IsUrl(
      { protocols: ['https'], require_protocol: true, require_tld: false },
      { message: 'webhook_url must be an https URL' },
    ),
  );

export const AspectRatio = () =>
  applyDecorators(
    ApiPropertyOptional({ example: '4:5', description: 'W:H, each a whole number from 1 to 32.' }),
    IsOptional(),
    IsString(),
    Matches(ASPECT_RATIO, { message: '$property must look like W:H with W and H from 1 to 32' }),
  );

/** An optional `#RRGGBB` colour; `defaultColour`, when the service fills one in, is documented as the default. */
export const HexColor = (defaultColour?: string) =>
  applyDecorators(
    ApiPropertyOptional(defaultColour ? { example: defaultColour, default: defaultColour } : { example: '#F5F5F5' }),
    IsOptional(),
    IsString(),
    Matches(HEX_COLOR, { message: '$property must be a #RRGGBB colour' }),
  );
