import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { ToolId } from '../catalog/tools';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export class UsageQueryDto {
  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-01',
    description: 'First day (UTC) of the range, included. Default: 29 days before `to`.',
  })
  @IsOptional()
  @Matches(DAY, { message: 'must be a date written YYYY-MM-DD' })
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-30',
    description: 'Last day (UTC) of the range, included; at most 366 days after `from`. Default: today (UTC).',
  })
  @IsOptional()
  @Matches(DAY, { message: 'must be a date written YYYY-MM-DD' })
  to?: string;
}

export class UsageFiguresDto {
  @ApiProperty({
    type: 'integer',
    example: 12,
    description: 'Credits captured by the results completed (0 for sandbox results, which cost nothing).',
  })
  credits_used!: number;
  @ApiProperty({ type: 'integer', example: 11, description: 'Results that completed.' }) results_completed!: number;
  @ApiProperty({ type: 'integer', example: 1, description: 'Results that failed.' }) results_failed!: number;
}

export class UsageDayDto extends UsageFiguresDto {
  @ApiProperty({ format: 'date', example: '2026-11-27', description: 'The day (UTC) the results settled.' })
  date!: string;
}

export class UsageToolDto extends UsageFiguresDto {
  @ApiProperty({ enum: ToolId, enumName: 'ToolId', example: ToolId.RemoveBackground }) tool!: ToolId;
}

export class UsageDto {
  @ApiProperty({ format: 'date', example: '2026-11-01' }) from!: string;
  @ApiProperty({ format: 'date', example: '2026-11-30' }) to!: string;
  @ApiProperty({ type: UsageFiguresDto, description: 'The whole range.' }) totals!: UsageFiguresDto;
  @ApiProperty({ type: [UsageDayDto], description: 'Every day of the range, oldest first, days without results at 0.' })
  by_day!: UsageDayDto[];
  @ApiProperty({ type: [UsageToolDto], description: 'The tools with results in the range, by tool id.' })
  by_tool!: UsageToolDto[];
}

export class UsageResponseDto {
  @ApiProperty({ type: UsageDto }) usage!: UsageDto;
  @ApiProperty() request_id!: string;
}
