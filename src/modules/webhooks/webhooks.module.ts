import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../core/storage/storage.module';
import { AccountsModule } from '../accounts/accounts.module';
import { WebhookAdminController } from './webhook-admin.controller';
import { WebhookAdminService } from './webhook-admin.service';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';
import { WebhookOutbox } from './webhook-outbox.service';
import { WebhookSecretsRepository } from './webhook-secrets.repository';
import { WebhookSecretsService } from './webhook-secrets.service';
import { WebhookAttempt, WebhookDelivery, WebhookEvent, WebhookSecret } from './webhook.entities';

/**
 * Events and their deliveries as the job lifecycle records them, signing secrets, and the
 * operators' webhook endpoints; shared by both roles.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookSecret, WebhookEvent, WebhookDelivery, WebhookAttempt]),
    AccountsModule,
    StorageModule,
  ],
  controllers: [WebhookAdminController],
  providers: [
    WebhookOutbox,
    WebhookDeliveryQueue,
    WebhookDeliveriesRepository,
    WebhookSecretsRepository,
    WebhookSecretsService,
    WebhookAdminService,
  ],
  exports: [
    WebhookOutbox,
    WebhookDeliveryQueue,
    WebhookDeliveriesRepository,
    WebhookSecretsService,
    WebhookAdminService,
  ],
})
export class WebhooksModule {}
