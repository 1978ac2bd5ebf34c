import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** How many rows a listing endpoint's page holds: at most `maximum`, `fallback` when the query leaves it out. */
interface PageLimitBounds {
  maximum: number;
  fallback: number;
  /** The example the endpoint's documentation shows, where it shows one. */
  example?: number;
}

/** `limit` of a listing endpoint: a whole number of rows from 1 to `maximum` (a query string, so converted first). */
export const PageLimit = ({ maximum, fallback, example }: PageLimitBounds = { maximum: 100, fallback: 20 }) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum,
      default: fallback,
      ...(example === undefined ? {} : { example }),
    }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(maximum),
  );

/** `cursor` of a listing endpoint: the opaque `next_cursor` of the previous page, checked when it is read. */
export const PageCursor = (description = 'The `next_cursor` of the previous page.', example?: string) =>
  applyDecorators(
    ApiPropertyOptional({ description, ...(example === undefined ? {} : { example }) }),
    IsOptional(),
    IsString(),
    MaxLength(200),
  );

/** `next_cursor` of a listing endpoint's page; `example: null` where the endpoint's documentation shows one. */
export const ShownNextCursor = ({ exampleNull = false }: { exampleNull?: boolean } = {}) =>
  ApiProperty({
    type: String,
    nullable: true,
    ...(exampleNull ? { example: null } : {}),
    description: 'Pass as `cursor` for the next page; null on the last.',
  });
