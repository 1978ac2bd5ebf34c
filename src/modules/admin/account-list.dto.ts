import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { AccountDto } from './admin.dto';
import { PageLimit, PageCursor, ShownNextCursor } from '../../core/http/paging';

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

  @PageLimit()
  limit?: number;

  @PageCursor('The `next_cursor` of the previous page (with the same `query`).')
  cursor?: string;
}

export class AccountListItemDto extends AccountDto {
  @ApiProperty({ type: 'integer', description: 'Keys of the account not revoked, live and sandbox.' })
  active_keys!: number;
}

export class AccountListResponseDto {
  @ApiProperty({ type: [AccountListItemDto], description: 'Newest first.' }) accounts!: AccountListItemDto[];
  @ShownNextCursor() next_cursor!: string | null;
  @ApiProperty() request_id!: string;
}
