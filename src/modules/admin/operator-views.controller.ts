import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, AccessLevel } from '../../core/http/access.decorator';
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
