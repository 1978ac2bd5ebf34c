import { Module } from '@nestjs/common';
import { StorageModule } from '../../core/storage/storage.module';
import { LiveEventsModule } from '../live-events/live-events.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ReviewPresenter } from './review.presenter';
import { ReviewsController } from './reviews.controller';
import { ReviewsRepository } from './reviews.repository';
import { ReviewsService } from './reviews.service';

/** A person's review of completed cut-outs: the list, decisions, and the re-cut links the create path records. */
@Module({
  imports: [LiveEventsModule, StorageModule, WebhooksModule],
  controllers: [ReviewsController],
  providers: [ReviewPresenter, ReviewsRepository, ReviewsService],
  exports: [ReviewsService],
})
export class ReviewsModule {}
