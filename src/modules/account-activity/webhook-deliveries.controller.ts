import { Controller, Get, HttpCode, Param, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
} from '@nestjs/swagger';
import { ShownNextCursor } from '../../core/http/paging';
import { pageOf, rowPageQuery } from '../../core/http/row-cursor';
import { UuidParamPipe } from '../../core/http/uuid-param.pipe';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import { CancelRateLimitInterceptor } from '../rate-limit/cancel-rate-limit.interceptor';
import { PollRateLimitGuard } from '../rate-limit/poll-rate-limit.guard';
import { DeliveryDto, RedeliveryResponseDto } from '../webhooks/webhook-admin.dto';
import { presentDelivery } from '../webhooks/webhook-admin.presenter';
import { WebhookAdminService } from '../webhooks/webhook-admin.service';
import { DEFAULT_PAGE_SIZE, isSandboxKey } from './caller-scope';
import { PageQueryDto } from './ledger.dto';
import { ActivityApi } from './activity-api';

class WebhookDeliveryListResponseDto {
  @ApiProperty({ type: [DeliveryDto] }) deliveries!: DeliveryDto[];
  @ShownNextCursor({ exampleNull: true }) next_cursor!: string | null;
  @ApiProperty() request_id!: string;
}

@ActivityApi('Webhooks')
@Controller('api/v1')
export class WebhookDeliveriesController {
  constructor(private readonly webhooks: WebhookAdminService) {}

  @Get('webhook-deliveries')
  @UseGuards(PollRateLimitGuard)
  @ApiOperation({
    summary:
      'Your webhook deliveries, newest first, each with its event and every attempt (status code, time, error, ' +
      'next attempt), for the jobs of your key’s environment (counts toward the polling limit).',
  })
  @ApiOkResponse({ type: WebhookDeliveryListResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: '`invalid_request`: `query.limit` or `query.cursor`' })
  async deliveries(
    @Auth() caller: AuthContext,
    @Query() query: PageQueryDto,
  ): Promise<{ deliveries: DeliveryDto[]; next_cursor: string | null }> {
    const { limit, afterId } = rowPageQuery(query, DEFAULT_PAGE_SIZE);
    const rows = await this.webhooks.ownDeliveries(
      { accountId: caller.accountId, sandbox: isSandboxKey(caller) },
      { limit, afterId },
    );
    const page = pageOf(rows, limit);
    return { deliveries: page.items.map(presentDelivery), next_cursor: page.nextCursor };
  }

  @Post('webhook-events/:eventId/redeliver')
  @HttpCode(202)
  @UseInterceptors(CancelRateLimitInterceptor)
  @ApiOperation({
    summary:
      'Send one of your events again (same id and body) to its job’s webhook URL, as a new delivery, as an ' +
      'operator’s redelivery does. Safe to repeat: while a delivery of the event still waits for its first ' +
      'attempt, it is returned and no other is queued. Counts toward the create limit; a refused request gives ' +
      'its slot back.',
  })
  @ApiAcceptedResponse({ type: RedeliveryResponseDto })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: '`invalid_request`: `path.eventId` is not a UUID, or the event’s job has no webhook_url',
  })
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: '`not_found`: no such event for this key’s account and environment',
  })
  async redeliver(
    @Auth() caller: AuthContext,
    @Param('eventId', UuidParamPipe) eventId: string,
  ): Promise<{ delivery: DeliveryDto }> {
    const owner = { accountId: caller.accountId, sandbox: isSandboxKey(caller) };
    return { delivery: presentDelivery(await this.webhooks.redeliverOwn(owner, eventId)) };
  }
}
