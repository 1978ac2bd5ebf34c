import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsNumber, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import type { FieldError } from '../../../core/errors/domain-error';
import { MAX_KEEP_POINTS } from '../../../engine/mask/subject-hints';
import { InputImageDto, InputImages, NestedObject } from './shared.dto';

/** A fraction of the source image's width or height: 0 its left or top edge, 1 its right or bottom edge. */
const Fraction = (axis: 'width' | 'height', example: number) =>
  applyDecorators(
    ApiProperty({
      type: 'number',
      minimum: 0,
      maximum: 1,
      example,
      description: `A fraction of the source image's ${axis}.`,
    }),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(0),
    Max(1),
  );

export class SubjectRegionDto {
  @Fraction('width', 0.1) left!: number;
  @Fraction('height', 0.05) top!: number;
  @Fraction('width', 0.7) right!: number;
  @Fraction('height', 0.95) bottom!: number;
}

export class SubjectPointDto {
  @Fraction('width', 0.4) x!: number;
  @Fraction('height', 0.5) y!: number;
}

/**
 * What the client knows of where its product is in one source image. Coordinates are fractions
 * of the image as displayed (after its EXIF orientation), so they mean the same at any size the
 * service decodes it at, and are checked when the job is created.
 */
export class SubjectHintsDto {
  @ApiPropertyOptional({
    type: SubjectRegionDto,
    nullable: true,
    description:
      'The product lies inside this box; everything outside it is background and comes out transparent (like ' +
      "remove.bg's `roi`). `right` must be greater than `left` and `bottom` greater than `top`.",
  })
  @NestedObject(() => SubjectRegionDto)
  region?: SubjectRegionDto | null;

  @ApiPropertyOptional({
    type: [SubjectPointDto],
    nullable: true,
    maxItems: MAX_KEEP_POINTS,
    description:
      'The product is under each of these points: what lies under a point is always kept and the subject is ' +
      `chosen around it, so props beside the product are dropped. At most ${MAX_KEEP_POINTS}; with a region, each ` +
      'point must lie inside it.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KEEP_POINTS)
  @ValidateNested({ each: true })
  @Type(() => SubjectPointDto)
  keep_points?: SubjectPointDto[] | null;
}

/** The `subject_hints` member of a source image, for the endpoints that cut the product out. */
export const SubjectHints = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: SubjectHintsDto,
      description:
        'Where the product is in this image, when the cut-out should not guess: a `region` that holds it, ' +
        '`keep_points` on it, or both (not an empty object). Only where the product is cut out: on POST ' +
        '/image/edit with a `background` operation that cuts it out (a type other than `original`, or a shadow), on ' +
        'product photo jobs with every operation but `product_photo_enhance` on a preset that keeps the background; ' +
        "elsewhere a 400. Returned with each of the image's results as sent.",
      example: { region: { left: 0.1, top: 0.05, right: 0.7, bottom: 0.95 }, keep_points: [{ x: 0.4, y: 0.5 }] },
    }),
    NestedObject(() => SubjectHintsDto),
  );

/** A source image whose product is cut out: it may say where the product is. */
export class CutoutInputImageDto extends InputImageDto {
  @SubjectHints()
  subject_hints?: SubjectHintsDto | null;
}

/** 1 to 20 source images that may carry subject hints. */
export const CutoutInputImages = () => InputImages(1, 20, () => CutoutInputImageDto);

/**
 * What the DTO's own decorators cannot see: a region must not be empty, keep points must lie in
 * it, and hints must hint at something. `path` is where the hints are (`input[0].subject_hints`).
 */
export function subjectHintProblems(path: string, hints: SubjectHintsDto | null | undefined): FieldError[] {
  if (!hints) return [];
  const { region } = hints;
  const points = hints.keep_points ?? [];
  if (!region && points.length === 0) {
    return [{ path, message: 'subject_hints must give a region or at least one keep point' }];
  }
  const problems: FieldError[] = [];
  if (region && region.right <= region.left)
    problems.push({ path: `${path}.region.right`, message: 'right must be greater than left' });
  if (region && region.bottom <= region.top)
    problems.push({ path: `${path}.region.bottom`, message: 'bottom must be greater than top' });
  if (region && problems.length === 0) {
    points.forEach((point, index) => {
      const inside =
        point.x >= region.left && point.x <= region.right && point.y >= region.top && point.y <= region.bottom;
      if (!inside)
        problems.push({ path: `${path}.keep_points[${index}]`, message: 'a keep point must lie inside the region' });
    });
  }
  return problems;
}
