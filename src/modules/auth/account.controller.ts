import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsNumber, Max, Min } from 'class-validator';
import type { Account } from '../accounts/account.entity';
import { AccountsService } from '../accounts/accounts.service';
import { KeyEnvironment } from './api-key.entity';
import { Auth, type AuthContext } from './auth-context';

class CallerAccountDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer', description: 'Spendable paid credits.' }) paid_credits!: number;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'A cut-out completing with an uncertainty at or above this is flagged for review (`needs_review`). ' +
      'Decided when the result completes: a later change flags only cut-outs completing after it.',
  })
  review_threshold!: number;
}

class CallerKeyDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: KeyEnvironment, enumName: 'KeyEnvironment' }) environment!: KeyEnvironment;
}

class CallerResponseDto {
  @ApiProperty({ type: CallerAccountDto }) account!: CallerAccountDto;
  @ApiProperty({ type: CallerKeyDto }) api_key!: CallerKeyDto;
  @ApiProperty() request_id!: string;
}

class AccountSettingsDto {
  @ApiProperty({ minimum: 0, maximum: 1, example: 0.35, description: 'The review threshold (0 to 1).' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  review_threshold!: number;
}

@ApiTags('Account')
@ApiBearerAuth('api_key')
@Controller('api/v1/account')
export class AccountController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @ApiOperation({ summary: 'The calling key, its environment and its account’s paid credit balance.' })
  @ApiOkResponse({ type: CallerResponseDto })
  async current(@Auth() auth: AuthContext): Promise<{ account: CallerAccountDto; api_key: CallerKeyDto }> {
    return this.present(auth, await this.accounts.get(auth.accountId));
  }

  @Patch()
  @ApiOperation({
    summary: 'Changes the account’s settings: its review threshold (for both environments).',
  })
  @ApiOkResponse({ type: CallerResponseDto })
  async update(
    @Auth() auth: AuthContext,
    @Body() body: AccountSettingsDto,
  ): Promise<{ account: CallerAccountDto; api_key: CallerKeyDto }> {
    await this.accounts.update(auth.accountId, { reviewThreshold: body.review_threshold });
    return this.present(auth, await this.accounts.get(auth.accountId));
  }

  private present(auth: AuthContext, account: Account): { account: CallerAccountDto; api_key: CallerKeyDto } {
    return {
      account: {
        id: account.id,
        name: account.name,
        paid_credits: account.paidCredits,
        review_threshold: account.reviewThreshold,
      },
      api_key: { id: auth.keyId, environment: auth.environment },
    };
  }
}
