import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { pageOf, rowPageQuery } from '../../core/http/row-cursor';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import { CreditsService } from '../credits/credits.service';
import { presentLedgerEntry } from '../credits/ledger-entry.presenter';
import { PollRateLimitGuard } from '../rate-limit/poll-rate-limit.guard';
import { DEFAULT_PAGE_SIZE, isSandboxKey } from './caller-scope';
import { AccountLedgerResponseDto, PageQueryDto, type AccountLedgerEntryDto } from './ledger.dto';
import { UsageQueryDto, UsageResponseDto, type UsageDto } from './usage.dto';
import { usageRange } from './usage-range';
import { UsageService } from './usage.service';
import { ActivityApi } from './activity-api';

@ActivityApi('Account')
@ApiBadRequestResponse({ type: ErrorResponseDto, description: '`invalid_request`: a query value, at `query.<name>`' })
@Controller('api/v1/account')
export class AccountActivityController {
  constructor(
    private readonly credits: CreditsService,
    private readonly usage: UsageService,
  ) {}

  @Get('ledger')
  @UseGuards(PollRateLimitGuard)
  @ApiOperation({
    summary:
      'Your account’s credit ledger, newest first, each entry with the balance it left (counts toward the ' +
      'polling limit). A sandbox key sees grants and corrections only: sandbox jobs move no credits.',
  })
  @ApiOkResponse({ type: AccountLedgerResponseDto })
  async ledger(
    @Auth() caller: AuthContext,
    @Query() query: PageQueryDto,
  ): Promise<{ entries: AccountLedgerEntryDto[]; next_cursor: string | null }> {
    const { limit, afterId } = rowPageQuery(query, DEFAULT_PAGE_SIZE);
    const rows = await this.credits.ledgerPage(caller.accountId, { limit, afterId, sandbox: isSandboxKey(caller) });
    const page = pageOf(rows, limit);
    return {
      entries: page.items.map((entry) => ({ ...presentLedgerEntry(entry), balance_after: entry.balanceAfter })),
      next_cursor: page.nextCursor,
    };
  }

  @Get('usage')
  @UseGuards(PollRateLimitGuard)
  @ApiOperation({
    summary:
      'What your key’s environment used over a range of UTC days: credits captured and results completed and ' +
      'failed, by day and by tool (counts toward the polling limit).',
  })
  @ApiOkResponse({ type: UsageResponseDto })
  async usageOf(@Auth() caller: AuthContext, @Query() query: UsageQueryDto): Promise<{ usage: UsageDto }> {
    const range = usageRange(query);
    return { usage: await this.usage.usageOf({ accountId: caller.accountId, sandbox: isSandboxKey(caller) }, range) };
  }
}
