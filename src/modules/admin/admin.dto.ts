import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsEnum,
  IsInt,
  IsISO8601,
  IsNumber,
  IsNotIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { KeyEnvironment } from '../auth/api-key.entity';
import { LedgerEntryKind } from '../credits/credit-ledger-entry.entity';
import { PageLimit } from '../../core/http/paging';

/** Largest single credit movement an operator may make; keeps balances far from int overflow. */
const MAX_CREDIT_MOVE = 1_000_000_000;

export class CreateAccountDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_CREDIT_MOVE)
  credits?: number;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  api_access?: boolean;
}

export class UpdateAccountDto {
  @ApiPropertyOptional()
  // Not @IsOptional(): that would let null through to a NOT NULL column.
  @ValidateIf((dto: UpdateAccountDto) => dto.api_access !== undefined)
  @IsBoolean()
  api_access?: boolean;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'null lifts the restriction.',
  })
  @ValidateIf((dto: UpdateAccountDto) => dto.restricted_until !== null && dto.restricted_until !== undefined)
  @IsISO8601({ strict: true }, { message: 'restricted_until must be an ISO-8601 date-time or null' })
  @Matches(/T.*(Z|[+-]\d{2}:?\d{2})$/, {
    message: 'restricted_until must be a date-time with a time zone (Z or ±hh:mm)',
  })
  restricted_until?: string | null;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1,
    description: "The account's review threshold (as the account's own `PATCH /api/v1/account` sets it).",
  })
  @ValidateIf((dto: UpdateAccountDto) => dto.review_threshold !== undefined)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  review_threshold?: number;
}

export class CreateApiKeyDto {
  @ApiProperty({ enum: KeyEnvironment, enumName: 'KeyEnvironment' })
  @IsEnum(KeyEnvironment)
  environment!: KeyEnvironment;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  name?: string;
}

export class CreditChangeDto {
  @ApiProperty({ type: 'integer', description: 'Positive grants credits, negative corrects them; never 0.' })
  @IsInt()
  @IsNotIn([0], { message: 'amount must not be 0' })
  @Min(-MAX_CREDIT_MOVE)
  @Max(MAX_CREDIT_MOVE)
  amount!: number;

  @ApiProperty({ minLength: 1, maxLength: 500 })
  @IsString()
  @Length(1, 500)
  reason!: string;
}

export class LedgerQueryDto {
  @PageLimit({ maximum: 1000, fallback: 100 })
  limit?: number;
}

export class AccountDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() api_access!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) restricted_until!: string | null;
  @ApiProperty({ type: 'integer' }) paid_credits!: number;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Cut-outs at or above this uncertainty are flagged for review.' })
  review_threshold!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class AccountResponseDto {
  @ApiProperty({ type: AccountDto }) account!: AccountDto;
  @ApiProperty() request_id!: string;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: KeyEnvironment, enumName: 'KeyEnvironment' }) environment!: KeyEnvironment;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ example: 'sk_live_3fQa' }) prefix!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class CreatedApiKeyResponseDto {
  @ApiProperty({ type: ApiKeyDto }) api_key!: ApiKeyDto;
  @ApiProperty({ description: 'Shown once; only its hash is stored.' }) secret!: string;
  @ApiProperty() request_id!: string;
}

export class LedgerEntryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: LedgerEntryKind, enumName: 'LedgerEntryKind' }) kind!: LedgerEntryKind;
  @ApiProperty({ type: 'integer', description: 'Signed effect on the balance.' }) amount!: number;
  @ApiProperty({ type: 'integer', description: 'Credits moved; for a capture, the credits spent.' }) credits!: number;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) job_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class LedgerResponseDto {
  @ApiProperty({ type: [LedgerEntryDto] }) entries!: LedgerEntryDto[];
  @ApiProperty() request_id!: string;
}

/** `restricted_until` as a change: undefined leaves it, null lifts it, a date sets it. */
export function restrictedUntilChange(value: string | null | undefined): Date | null | undefined {
  return value === undefined || value === null ? value : new Date(value);
}
