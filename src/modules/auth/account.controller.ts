import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AccountsService } from '../accounts/accounts.service';
import { KeyEnvironment } from './api-key.entity';
import { Auth, type AuthContext } from './auth-context';

class CallerAccountDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer', description: 'Spendable paid credits.' }) paid_credits!: number;
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

@ApiTags('Account')
@ApiBearerAuth('api_key')
@Controller('api/v1/account')
export class AccountController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @ApiOperation({ summary: 'The calling key, its environment and its account’s paid credit balance.' })
  @ApiOkResponse({ type: CallerResponseDto })
  async current(@Auth() auth: AuthContext): Promise<{ account: CallerAccountDto; api_key: CallerKeyDto }> {
    const account = await this.accounts.get(auth.accountId);
    return {
      account: { id: account.id, name: account.name, paid_credits: account.paidCredits },
      api_key: { id: auth.keyId, environment: auth.environment },
    };
  }
}
