import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';
import type { FieldError } from '../../../core/errors/domain-error';
import type { StoredPadding, StoredPlacement } from '../../tools/tool-options';
import { OptionalWithDefault } from './shared.dto';

export const HORIZONTAL_ALIGNMENTS = ['left', 'center', 'right'] as const;
export const VERTICAL_ALIGNMENTS = ['top', 'center', 'bottom'] as const;
export const PADDING_SIDES = ['top', 'right', 'bottom', 'left'] as const;
export const MAX_CANVAS_SIDE = 8192;
/** A side's padding in percent stays below half the canvas, so the two sides of an axis always leave room. */
export const MAX_PADDING_PERCENT = 50;

/** `fit`, `fill`, or a percent of the fitted size (up to two decimals; above 0 and at most 100, see isScale). */
const SCALE = /^(fit|fill|[0-9]{1,3}(\.[0-9]{1,2})?%)$/;

const isScale = (value: unknown): boolean => {
  if (typeof value !== 'string' || !SCALE.test(value)) return false;
  if (value === 'fit' || value === 'fill') return true;
  const percent = Number(value.slice(0, -1));
  return percent > 0 && percent <= 100;
};
const PERCENT_LENGTH = /^([0-9]{1,2}(\.[0-9]{1,2})?)%$/;
const PIXEL_LENGTH = /^([0-9]{1,4})px$/;

/** One side's padding as sent: whole pixels (a number, or "24px") or "N%" of the canvas side. */
export type PaddingLengthInput = number | string;
/** `padding` as sent: one length for every side, or one per side. */
export type PaddingInput = PaddingLengthInput | Partial<Record<(typeof PADDING_SIDES)[number], PaddingLengthInput>>;

const PADDING_LENGTH_DESCRIPTION =
  `Whole pixels (a number, or a string such as "24px", up to ${MAX_CANVAS_SIDE}) or a percent of the canvas side ` +
  `in its direction ("5%": of the width for left and right, of the height for top and bottom; from 0 to below ` +
  `${MAX_PADDING_PERCENT}, up to two decimals, rounded to the nearest pixel).`;

/** A padding length: its pixels, or its percent, or the reason it is neither. */
function readLength(value: unknown): { px: number } | { percent: number } | { problem: string } {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 && value <= MAX_CANVAS_SIDE
      ? { px: value }
      : { problem: `must be a whole number of pixels from 0 to ${MAX_CANVAS_SIDE}` };
  }
  if (typeof value === 'string') {
    const pixels = PIXEL_LENGTH.exec(value);
    if (pixels && Number(pixels[1]) <= MAX_CANVAS_SIDE) return { px: Number(pixels[1]) };
    const percent = PERCENT_LENGTH.exec(value);
    if (percent && Number(percent[1]) < MAX_PADDING_PERCENT) return { percent: Number(percent[1]) };
  }
  return {
    problem:
      `must be whole pixels (24 or "24px", at most ${MAX_CANVAS_SIDE}) or a percent of the canvas side ` +
      `from "0%" to below "${MAX_PADDING_PERCENT}%"`,
  };
}

/** The DTO's own check of `padding`: its shape only; each side is checked where it sits (placementProblems). */
const PaddingShape = () =>
  ValidateBy({
    name: 'isPadding',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'number' ||
        typeof value === 'string' ||
        (typeof value === 'object' && value !== null && !Array.isArray(value)),
      defaultMessage: () =>
        'padding must be one length for every side (24, "24px" or "5%") or an object of top, right, bottom and left',
    },
  });

const CanvasSide = (side: 'width' | 'height', example: number) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_CANVAS_SIDE,
      example,
      description:
        `The canvas ${side} in pixels. Give both width and height, or neither: without them the canvas is the ` +
        "source's own size (as the cut-out decodes it: sources above 25 megapixels are scaled down to it). " +
        "width x height may not pass the deployment's pixel limit (50 megapixels by default): a 400.",
    }),
    IsOptional(),
    IsInt(),
    Min(1),
    Max(MAX_CANVAS_SIDE),
  );

/**
 * Where the product goes on the result (Photoroom's `outputSize`, `padding`, alignments and
 * `scaling`; remove.bg's `position` and `scale`): a canvas, the padding inside its edges, the
 * product's box scaled into what the padding leaves and aligned there.
 */
export class PlacementDto {
  @CanvasSide('width', 1200) width?: number;
  @CanvasSide('height', 1200) height?: number;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'integer', minimum: 0, maximum: MAX_CANVAS_SIDE },
      { type: 'string', pattern: '^([0-9]{1,4}px|[0-9]{1,2}(\\.[0-9]{1,2})?%)$' },
      {
        type: 'object',
        properties: Object.fromEntries(
          PADDING_SIDES.map((side) => [
            side,
            { oneOf: [{ type: 'integer', minimum: 0, maximum: MAX_CANVAS_SIDE }, { type: 'string' }] },
          ]),
        ),
        additionalProperties: false,
      },
    ],
    default: 0,
    example: { top: '5%', right: 24, bottom: '5%', left: 24 },
    description:
      'Space kept clear inside the canvas edges: one length for every side, or an object of `top`, `right`, ' +
      `\`bottom\` and \`left\` (a side left out is 0). ${PADDING_LENGTH_DESCRIPTION} The product's box is placed ` +
      'in the box the padding leaves; padding that leaves no room (left + right at least the width, or top + ' +
      "bottom at least the height) is a 400, or, on a canvas of the source's size that only the source shows, " +
      'fails the result with `processing_failed` (not charged).',
  })
  @IsOptional()
  @PaddingShape()
  padding?: PaddingInput;

  @ApiPropertyOptional({
    enum: HORIZONTAL_ALIGNMENTS,
    default: 'center',
    description:
      "Where the product's box sits across the padded box: flush with its left or right side, or centred " +
      '(an odd pixel left over goes to the right).',
  })
  @OptionalWithDefault()
  @IsIn(HORIZONTAL_ALIGNMENTS)
  horizontal_alignment?: (typeof HORIZONTAL_ALIGNMENTS)[number];

  @ApiPropertyOptional({
    enum: VERTICAL_ALIGNMENTS,
    default: 'center',
    example: 'bottom',
    description:
      "Where the product's box sits down the padded box: flush with its top or bottom, or centred (an odd " +
      'pixel left over goes to the bottom).',
  })
  @OptionalWithDefault()
  @IsIn(VERTICAL_ALIGNMENTS)
  vertical_alignment?: (typeof VERTICAL_ALIGNMENTS)[number];

  @ApiPropertyOptional({
    type: 'string',
    default: 'fit',
    example: '80%',
    pattern: SCALE.source,
    description:
      "The product's size: `fit` scales its box to fit inside the padded box (touching it on the tighter " +
      'side), `fill` to cover it (the overflow past the canvas is cut), `"N%"` (above 0 to 100) to N percent of ' +
      "the fitted size. The box's sides are rounded to whole pixels. The product is enlarged when it must be.",
  })
  @OptionalWithDefault()
  @ValidateBy({
    name: 'isScale',
    validator: {
      validate: isScale,
      defaultMessage: () => 'scale must be fit, fill or a percent such as "80%" (above 0 to 100)',
    },
  })
  scale?: string;

  @ApiPropertyOptional({
    default: false,
    description:
      "Whether the product's box takes in its shadow (where the shadow is visible), so the product and its " +
      'shadow together are fitted and aligned; without it the shadow may reach into the padding.',
  })
  @OptionalWithDefault()
  @IsBoolean()
  shadow_in_box?: boolean;
}

/** How every `placement` member is described where it is offered. */
export const PLACEMENT_DESCRIPTION =
  "The product placed on a canvas: its size, padding, alignment, the product's scale and whether its shadow " +
  "counts in its box (defaults: the source's size, no padding, centred, fit, without the shadow). Without it the " +
  "result keeps the source's frame as before. The product's box is its alpha bounds (alpha at least 128).";

export const PLACEMENT_EXAMPLE = {
  width: 1200,
  height: 1200,
  padding: '5%',
  horizontal_alignment: 'center',
  vertical_alignment: 'bottom',
  scale: 'fit',
  shadow_in_box: true,
};

const megapixels = (pixels: number) => `${Math.round(pixels / 1e5) / 10} megapixels`;

/**
 * What the DTO's decorators cannot see: each side of `padding` (at `path.padding.top` and so on),
 * width and height given together, a canvas no larger than a worker holds (`maxPixels`), and
 * padding that leaves no room on a canvas whose size is given. `path` is where the placement is
 * (`placement` or `operations.placement`).
 */
export function placementProblems(path: string, placement: PlacementDto | undefined, maxPixels: number): FieldError[] {
  if (!placement) return [];
  const problems: FieldError[] = [];
  const { width, height } = placement;
  if ((width === undefined) !== (height === undefined)) {
    const missing = width === undefined ? 'width' : 'height';
    problems.push({ path: `${path}.${missing}`, message: 'give both width and height, or neither' });
  }
  if (width !== undefined && height !== undefined && width * height > maxPixels) {
    problems.push({
      path,
      message: `a canvas is at most ${megapixels(maxPixels)}; ${width} x ${height} is ${megapixels(width * height)}`,
    });
  }
  const sides = paddingSides(path, placement.padding, problems);
  if (sides && width !== undefined && height !== undefined) {
    const pixels = (side: (typeof PADDING_SIDES)[number], length: number) => {
      const value = sides[side];
      return 'px' in value ? value.px : Math.round((value.percent * length) / 100);
    };
    const across = pixels('left', width) + pixels('right', width);
    const down = pixels('top', height) + pixels('bottom', height);
    if (across >= width)
      problems.push({
        path: `${path}.padding`,
        message: `left and right padding (${across} px) leave no room on a canvas ${width} px wide`,
      });
    if (down >= height)
      problems.push({
        path: `${path}.padding`,
        message: `top and bottom padding (${down} px) leave no room on a canvas ${height} px high`,
      });
  }
  return problems;
}

type SideLengths = Record<(typeof PADDING_SIDES)[number], { px: number } | { percent: number }>;

/** Each side's length, or null when any is wrong (each problem added at its side's path). */
function paddingSides(path: string, padding: PaddingInput | undefined, problems: FieldError[]): SideLengths | null {
  if (padding === undefined) return { top: { px: 0 }, right: { px: 0 }, bottom: { px: 0 }, left: { px: 0 } };
  if (typeof padding !== 'object') {
    const length = readLength(padding);
    if ('problem' in length) {
      problems.push({ path: `${path}.padding`, message: `padding ${length.problem}` });
      return null;
    }
    return { top: length, right: length, bottom: length, left: length };
  }
  const before = problems.length;
  for (const key of Object.keys(padding)) {
    if (!(PADDING_SIDES as readonly string[]).includes(key))
      problems.push({ path: `${path}.padding.${key}`, message: `property ${key} should not exist` });
  }
  const sides = {} as SideLengths;
  for (const side of PADDING_SIDES) {
    const length = readLength(side in padding ? padding[side] : 0);
    if ('problem' in length) problems.push({ path: `${path}.padding.${side}`, message: `${side} ${length.problem}` });
    else sides[side] = length;
  }
  return problems.length === before ? sides : null;
}

/** A valid placement as the job stores it: its defaults applied, padding one length per side ("N%" or pixels). */
export function storedPlacement(placement: PlacementDto): StoredPlacement {
  const stored = (value: PaddingLengthInput | undefined): number | string => {
    const length = readLength(value ?? 0);
    if ('px' in length) return length.px;
    return 'percent' in length ? `${length.percent}%` : 0;
  };
  const given = placement.padding;
  const padding: StoredPadding =
    typeof given === 'object'
      ? {
          top: stored(given.top),
          right: stored(given.right),
          bottom: stored(given.bottom),
          left: stored(given.left),
        }
      : { top: stored(given), right: stored(given), bottom: stored(given), left: stored(given) };
  return {
    ...(placement.width !== undefined && placement.height !== undefined
      ? { width: placement.width, height: placement.height }
      : {}),
    padding,
    horizontal_alignment: placement.horizontal_alignment ?? 'center',
    vertical_alignment: placement.vertical_alignment ?? 'center',
    scale: placement.scale ?? 'fit',
    shadow_in_box: placement.shadow_in_box ?? false,
  };
}
