import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Access, AccessLevel } from '../../core/http/access.decorator';
import { UuidParamPipe } from '../../core/http/uuid-param.pipe';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { OptionalIdempotencyKeyHeader } from '../idempotency/idempotency-key.decorator';
import {
  AccountResponseDto,
  CreateAccountDto,
  CreateApiKeyDto,
  CreatedApiKeyResponseDto,
  CreditChangeDto,
  LedgerQueryDto,
  LedgerResponseDto,
  UpdateAccountDto,
  restrictedUntilChange,
  type AccountDto,
  type ApiKeyDto,
  type LedgerEntryDto,
} from './admin.dto';
import { presentLedgerEntry } from '../credits/ledger-entry.presenter';
import { presentAccount, presentApiKey } from './admin.presenter';
import { AdminService } from './admin.service';

const DEFAULT_LEDGER_LIMIT = 100;

@ApiTags('Admin')
@ApiBearerAuth('admin')
@Access(AccessLevel.Admin)
@Controller('admin/v1')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Post('accounts')
  @ApiOperation({ summary: 'Create an account, optionally with opening credits.' })
  @ApiCreatedResponse({ type: AccountResponseDto })
  async createAccount(@Body() body: CreateAccountDto): Promise<{ account: AccountDto }> {
    const account = await this.admin.createAccount({
      name: body.name,
      credits: body.credits ?? 0,
      apiAccess: body.api_access ?? true,
    });
    return { account: presentAccount(account) };
  }

  @Get('accounts/:accountId')
  @ApiOkResponse({ type: AccountResponseDto })
  async getAccount(@Param('accountId', UuidParamPipe) accountId: string): Promise<{ account: AccountDto }> {
    return { account: presentAccount(await this.admin.getAccount(accountId)) };
  }

  @Patch('accounts/:accountId')
  @ApiOperation({
    summary: 'Enable or disable API access, restrict the account until a time, or set its review threshold.',
  })
  @ApiOkResponse({ type: AccountResponseDto })
  async updateAccount(
    @Param('accountId', UuidParamPipe) accountId: string,
    @Body() body: UpdateAccountDto,
  ): Promise<{ account: AccountDto }> {
    const account = await this.admin.updateAccount(accountId, {
      apiAccess: body.api_access,
      restrictedUntil: restrictedUntilChange(body.restricted_until),
      reviewThreshold: body.review_threshold,
    });
    return { account: presentAccount(account) };
  }

  @Post('accounts/:accountId/api-keys')
  @ApiOperation({ summary: 'Issue a live or sandbox key; the secret is returned only here.' })
  @ApiCreatedResponse({ type: CreatedApiKeyResponseDto })
  async issueKey(
    @Param('accountId', UuidParamPipe) accountId: string,
    @Body() body: CreateApiKeyDto,
  ): Promise<{ api_key: ApiKeyDto; secret: string }> {
    const issued = await this.admin.issueKey(accountId, body.environment, body.name ?? null);
    return { api_key: presentApiKey(issued.apiKey), secret: issued.secret };
  }

  @Delete('api-keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a key; it is refused from the next request on.' })
  @ApiNoContentResponse()
  async revokeKey(@Param('keyId', UuidParamPipe) keyId: string): Promise<void> {
    await this.admin.revokeKey(keyId);
  }

  @Post('accounts/:accountId/credits')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Grant credits or correct the balance; written to the ledger.',
    description:
      'Send an `Idempotency-Key` to make a retry safe: the same key with the same account and body ' +
      'changes nothing again and answers 200 with the account as it is now (kept 24 h); with another ' +
      'account or body it is 409 `idempotency_conflict`. A concurrent request with the key waits for ' +
      'the first. A refused change stores no key. A grant must leave the balance, plus the credits ' +
      'still reserved by unfinished results, within 2147483647 (400 otherwise).',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '8 to 160 of A-Z a-z 0-9 . _ : -' })
  @ApiOkResponse({ type: AccountResponseDto })
  @ApiConflictResponse({ type: ErrorResponseDto, description: '`idempotency_conflict`' })
  async changeCredits(
    @Param('accountId', UuidParamPipe) accountId: string,
    @Body() body: CreditChangeDto,
    @OptionalIdempotencyKeyHeader() idempotencyKey: string | undefined,
  ): Promise<{ account: AccountDto }> {
    return {
      account: presentAccount(await this.admin.changeCredits(accountId, body.amount, body.reason, idempotencyKey)),
    };
  }

  @Get('accounts/:accountId/ledger')
  @ApiOperation({ summary: 'The account’s credit movements, newest first.' })
  @ApiOkResponse({ type: LedgerResponseDto })
  async ledger(
    @Param('accountId', UuidParamPipe) accountId: string,
    @Query() query: LedgerQueryDto,
  ): Promise<{ entries: LedgerEntryDto[] }> {
    const entries = await this.admin.ledger(accountId, query.limit ?? DEFAULT_LEDGER_LIMIT);
    return { entries: entries.map(presentLedgerEntry) };
  }
}
