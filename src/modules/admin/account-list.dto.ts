import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import { AccountDto } from './admin.dto';

export class AccountListQueryDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    example: 'acme',
    description:
      'Finds the accounts whose name holds this text (any case), the account with this id (a whole UUID), and ' +
      'the accounts with a key whose display prefix starts with it (`sk_live_3fQa`). Without it, every account.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  query?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `next_cursor` of the previous page (with the same `query`).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class AccountListItemDto extends AccountDto {
  @ApiProperty({ type: 'integer', description: 'Keys of the account not revoked, live and sandbox.' })
  active_keys!: number;
}

export class AccountListResponseDto {
  @ApiProperty({ type: [AccountListItemDto], description: 'Newest first.' }) accounts!: AccountListItemDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last.' })
  next_cursor!: string | null;
  @ApiProperty() request_id!: string;
}
