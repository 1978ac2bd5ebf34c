import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Access, AccessLevel } from '../../core/http/access.decorator';
import { CSV_CONTENT_TYPE, csvAttachment, refuseQueryParameters } from '../../core/http/csv';
import { UuidParamPipe } from '../../core/http/uuid-param.pipe';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { AccountListQueryDto, AccountListResponseDto, type AccountListItemDto } from './account-list.dto';
import { OperatorViewsService } from './operator-views.service';
import { OverviewResponseDto, type OverviewDto } from './overview.dto';

const DEFAULT_ACCOUNT_PAGE = 20;

@ApiTags('Admin')
@ApiBearerAuth('admin')
@Access(AccessLevel.Admin)
@Controller('admin/v1')
export class OperatorViewsController {
  constructor(private readonly views: OperatorViewsService) {}

  @Get('accounts')
  @ApiOperation({ summary: 'Find accounts by a part of the name, an id or a key prefix; newest first, in pages.' })
  @ApiOkResponse({ type: AccountListResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: '`invalid_request`: a query value, at `query.<name>`' })
  listAccounts(
    @Query() query: AccountListQueryDto,
  ): Promise<{ accounts: AccountListItemDto[]; next_cursor: string | null }> {
    return this.views.listAccounts({
      query: query.query,
      limit: query.limit ?? DEFAULT_ACCOUNT_PAGE,
      cursor: query.cursor,
    });
  }

  @Get('accounts/:accountId/ledger.csv')
  @ApiOperation({
    summary:
      'The account’s whole ledger as CSV, newest first, with the balance each entry left (as the account’s live ' +
      'keys read it). Columns: id, created_at, kind, amount, credits, balance_after, job_id, reason.',
  })
  @ApiProduces(CSV_CONTENT_TYPE)
  @ApiResponse({ status: 200, description: 'The CSV file, sent as an attachment.', schema: { type: 'string' } })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: '`invalid_request`: the id, or any query parameter' })
  async ledgerCsv(
    @Param('accountId', UuidParamPipe) accountId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<StreamableFile> {
    refuseQueryParameters(query);
    return csvAttachment(await this.views.ledgerCsv(accountId), `ledger-${accountId}.csv`);
  }

  @Get('overview')
  @ApiOperation({
    summary:
      'The service at a glance: each queue’s depth and its longest wait, results settled per minute and ' +
      'failures by code over the last hour, and the workers connected with their queues.',
  })
  @ApiOkResponse({ type: OverviewResponseDto })
  async overview(): Promise<{ overview: OverviewDto }> {
    return { overview: await this.views.overview() };
  }
}
