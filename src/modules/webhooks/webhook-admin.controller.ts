import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { UuidParamPipe } from '../../core/http/uuid-param.pipe';
import { Access, AccessLevel } from '../../core/http/access.decorator';
import {
  DeliveriesQueryDto,
  DeliveriesResponseDto,
  RedeliveryResponseDto,
  WebhookSecretResponseDto,
  type DeliveryDto,
} from './webhook-admin.dto';
import { presentDelivery } from './webhook-admin.presenter';
import { WebhookAdminService } from './webhook-admin.service';
import { WebhookSecretsService } from './webhook-secrets.service';

const DEFAULT_DELIVERIES_LIMIT = 50;

@ApiTags('Admin')
@ApiBearerAuth('admin')
@ApiNotFoundResponse({ type: ErrorResponseDto, description: '`not_found`: no such account or event' })
@Access(AccessLevel.Admin)
@Controller('admin/v1')
export class WebhookAdminController {
  constructor(
    private readonly secrets: WebhookSecretsService,
    private readonly webhooks: WebhookAdminService,
  ) {}

  @Get('accounts/:accountId/webhook-secret')
  @ApiOperation({ summary: 'The account’s current webhook signing secret (created on first use).' })
  @ApiOkResponse({ type: WebhookSecretResponseDto })
  async secret(@Param('accountId', UuidParamPipe) accountId: string): Promise<{ secret: string }> {
    return { secret: await this.secrets.current(accountId) };
  }

  @Post('accounts/:accountId/webhook-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the webhook secret. Deliveries carry signatures of both secrets until the old one expires (24 h).',
  })
  @ApiOkResponse({ type: WebhookSecretResponseDto })
  async rotate(@Param('accountId', UuidParamPipe) accountId: string): Promise<{ secret: string }> {
    return { secret: await this.secrets.rotate(accountId) };
  }

  @Get('accounts/:accountId/webhook-deliveries')
  @ApiOperation({ summary: 'The account’s recent webhook deliveries, newest first, with every attempt.' })
  @ApiOkResponse({ type: DeliveriesResponseDto })
  async deliveries(
    @Param('accountId', UuidParamPipe) accountId: string,
    @Query() query: DeliveriesQueryDto,
  ): Promise<{ deliveries: DeliveryDto[] }> {
    const deliveries = await this.webhooks.recentDeliveries(accountId, query.limit ?? DEFAULT_DELIVERIES_LIMIT);
    return { deliveries: deliveries.map(presentDelivery) };
  }

  @Post('webhook-events/:eventId/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send an event again (same id and body) to its job’s webhook URL, as a new delivery.' })
  @ApiAcceptedResponse({ type: RedeliveryResponseDto })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: '`invalid_request`: the event’s job has no webhook_url',
  })
  async redeliver(@Param('eventId', UuidParamPipe) eventId: string): Promise<{ delivery: DeliveryDto }> {
    return { delivery: presentDelivery(await this.webhooks.redeliver(eventId)) };
  }
}
