import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AccountActivityController } from './account-activity.controller';
import { ActivityExportsController } from './activity-exports.controller';
import { ActivityExportsService } from './activity-exports.service';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';

/**
 * What an API key may read of its own account besides its jobs: the credit ledger, usage (both
 * also as CSV), and webhook deliveries with their redelivery. It composes the services that own the data
 * (credits, webhooks) and adds no write of its own.
 */
@Module({
  imports: [CreditsModule, RateLimitModule, WebhooksModule],
  controllers: [AccountActivityController, ActivityExportsController, WebhookDeliveriesController],
  providers: [UsageRepository, UsageService, ActivityExportsService],
})
export class AccountActivityModule {}
