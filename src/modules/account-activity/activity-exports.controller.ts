import { Readable } from 'node:stream';
import { Controller, Get, Query, StreamableFile, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import { PollRateLimitGuard } from '../rate-limit/poll-rate-limit.guard';
import { ActivityExportsService } from './activity-exports.service';
import { isSandboxKey } from './caller-scope';
import { UsageQueryDto } from './usage.dto';
import { usageRange } from './usage-range';

const CSV_TYPE = 'text/csv; charset=utf-8';

const attachment = (filename: string) => `attachment; filename="${filename}"`;

/** The ledger export takes no parameter: a `limit` or `cursor` meant for the JSON read is a 400, not ignored. */
function refuseParameters(query: Record<string, unknown>): void {
  const names = Object.keys(query);
  if (names.length > 0) {
    throw DomainError.invalid(names.map((name) => ({ path: `query.${name}`, message: 'is not taken by this export' })));
  }
}

/** The ledger and usage reads as CSV files, for a spreadsheet or an accountant. */
@ApiTags('Account')
@ApiBearerAuth('api_key')
@ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: '`rate_limit_exceeded`' })
@ApiProduces(CSV_TYPE)
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
  ledgerCsv(@Auth() caller: AuthContext, @Query() query: Record<string, unknown>): StreamableFile {
    refuseParameters(query);
    const scope = { accountId: caller.accountId, sandbox: isSandboxKey(caller) };
    return new StreamableFile(Readable.from(this.exports.ledgerCsv(scope)), {
      type: CSV_TYPE,
      disposition: attachment(`ledger-${caller.environment}.csv`),
    });
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
    return new StreamableFile(Buffer.from(csv, 'utf8'), {
      type: CSV_TYPE,
      disposition: attachment(`usage-${caller.environment}-${range.from}-to-${range.to}.csv`),
    });
  }
}
