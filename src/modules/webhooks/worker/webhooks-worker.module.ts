import { Module } from '@nestjs/common';
import { DeliverySlots } from '../delivery-slots';
import { WebhookSender } from '../webhook-sender';
import { WebhooksModule } from '../webhooks.module';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookSweeperService } from './webhook-sweeper.service';

/** The delivering half: only the worker role imports it. */
@Module({
  imports: [WebhooksModule],
  providers: [WebhookDeliveryService, WebhookSweeperService, WebhookSender, DeliverySlots],
  exports: [WebhookDeliveryService, WebhookSweeperService],
})
export class WebhooksWorkerModule {}
