import { Controller, Get, Query, StreamableFile, UseGuards } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import { CSV_CONTENT_TYPE, csvAttachment, refuseQueryParameters } from '../../core/http/csv';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import { PollRateLimitGuard } from '../rate-limit/poll-rate-limit.guard';
import { ActivityExportsService } from './activity-exports.service';
import { isSandboxKey } from './caller-scope';
import { UsageQueryDto } from './usage.dto';
import { usageRange } from './usage-range';
import { ActivityApi } from './activity-api';

/** The ledger and usage reads as CSV files, for a spreadsheet or an accountant. */
@ActivityApi('Account')
@ApiProduces(CSV_CONTENT_TYPE)
@Controller('api/v1/account')
export class ActivityExportsController {
  constructor(private readonly exports: ActivityExportsService) {}

  @Get('ledger.csv')
  @UseGuards(PollRateLimitGuard)
  @ApiOperation({
    summary:
      'Your whole credit ledger as CSV, newest first, as `GET /account/ledger` reads it (a sandbox key: grants ' +
      'and corrections only). Columns: id, created_at, kind, amount, credits, balance_after, job_id, reason. ' +
      'Counts toward the polling limit once.',
  })
  @ApiResponse({ status: 200, description: 'The CSV file, sent as an attachment.', schema: { type: 'string' } })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: '`invalid_request`: any query parameter' })
  async ledgerCsv(@Auth() caller: AuthContext, @Query() query: Record<string, unknown>): Promise<StreamableFile> {
    refuseQueryParameters(query);
    const scope = { accountId: caller.accountId, sandbox: isSandboxKey(caller) };
    return csvAttachment(await this.exports.ledgerCsv(scope), `ledger-${caller.environment}.csv`);
  }

  @Get('usage.csv')
  @UseGuards(PollRateLimitGuard)
  @ApiOperation({
    summary:
      'Your usage over a range of UTC days as CSV, one row per day and tool with results, as `GET /account/usage` ' +
      'counts them (same `from` and `to`). Columns: date, tool, credits_used, results_completed, results_failed. ' +
      'Counts toward the polling limit.',
  })
  @ApiResponse({ status: 200, description: 'The CSV file, sent as an attachment.', schema: { type: 'string' } })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: '`invalid_request`: a query value, at `query.<name>`' })
  async usageCsv(@Auth() caller: AuthContext, @Query() query: UsageQueryDto): Promise<StreamableFile> {
    const range = usageRange(query);
    const csv = await this.exports.usageCsv({ accountId: caller.accountId, sandbox: isSandboxKey(caller) }, range);
    return csvAttachment(csv, `usage-${caller.environment}-${range.from}-to-${range.to}.csv`);
  }
}
