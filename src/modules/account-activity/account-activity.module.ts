import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AccountActivityController } from './account-activity.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';

/**
 * What an API key may read of its own account besides its jobs: the credit ledger, usage, and
 * webhook deliveries with their redelivery. It composes the services that own the data
 * (credits, webhooks) and adds no write of its own.
 */
@Module({
  imports: [CreditsModule, RateLimitModule, WebhooksModule],
  controllers: [AccountActivityController, WebhookDeliveriesController],
  providers: [UsageRepository, UsageService],
})
export class AccountActivityModule {}
