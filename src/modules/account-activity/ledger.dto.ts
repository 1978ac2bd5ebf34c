import { ApiProperty } from '@nestjs/swagger';
import { LedgerEntryKind } from '../credits/credit-ledger-entry.entity';
import { PageLimit, PageCursor, ShownNextCursor } from '../../core/http/paging';

/** `limit` and `cursor`, as `GET /jobs` takes them. */
export class PageQueryDto {
  @PageLimit({ maximum: 100, fallback: 20, example: 20 })
  limit?: number;

  @PageCursor('The `next_cursor` of the previous page.', 'WyI1ZjBjNmEyZS0uLi4iXQ')
  cursor?: string;
}

export class AccountLedgerEntryDto {
  @ApiProperty({ format: 'uuid', example: '0d6c1c5e-3f0e-4b8e-9a59-3a4a0e7b2f10' }) id!: string;

  @ApiProperty({
    enum: LedgerEntryKind,
    enumName: 'LedgerEntryKind',
    example: LedgerEntryKind.Reserve,
    description:
      '`grant` (credits added by an operator), `reserve` (taken from the balance when a live job was admitted), ' +
      '`capture` (reserved credits spent by completed results), `release` (reserved credits given back by failed ' +
      'or cancelled results), `adjustment` (an operator’s correction, either sign).',
  })
  kind!: LedgerEntryKind;

  @ApiProperty({
    type: 'integer',
    example: -3,
    description:
      'The signed effect on the balance: positive for grants and releases, negative for reservations, 0 for ' +
      'captures (they spend credits already taken by the reservation).',
  })
  amount!: number;

  @ApiProperty({
    type: 'integer',
    example: 3,
    description: 'How many credits the entry moves, whatever its sign: for a capture, the credits spent.',
  })
  credits!: number;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '7c1e2f4a-9b3d-4c5e-8f6a-1b2c3d4e5f60',
    description: 'The job that moved the credits; null for grants and corrections.',
  })
  job_id!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The reason an operator gave for a grant or correction; null for job entries.',
  })
  reason!: string | null;

  @ApiProperty({
    type: 'integer',
    example: 97,
    description: 'The account’s balance once this entry was written (the sum of every amount up to it).',
  })
  balance_after!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T10:00:00.000Z' }) created_at!: string;
}

export class AccountLedgerResponseDto {
  @ApiProperty({ type: [AccountLedgerEntryDto] }) entries!: AccountLedgerEntryDto[];
  @ShownNextCursor({ exampleNull: true }) next_cursor!: string | null;
  @ApiProperty() request_id!: string;
}
