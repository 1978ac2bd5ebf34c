import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../core/storage/storage.module';
import { AccountsModule } from '../accounts/accounts.module';
import { CapacityModule } from '../capacity/capacity.module';
import { CatalogModule } from '../catalog/catalog.module';
import { CreditsModule } from '../credits/credits.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { LiveEventsModule } from '../live-events/live-events.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ReviewsModule } from '../reviews/reviews.module';
import { ToolAvailabilityModule } from '../catalog/tool-availability';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { CreateJobsController } from './create-jobs.controller';
import { JobCreationService } from './job-creation.service';
import { JobLifecycleService } from './job-lifecycle.service';
import { JobStateRepository } from './job-state.repository';
import { JobResult } from './job-result.entity';
import { Job } from './job.entity';
import { JobPresenter } from './job.presenter';
import { JobsController } from './jobs.controller';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { ResultQueueProducer } from './result-queue.producer';
import { SegmentationModelChoice } from './segmentation-model-choice';

/** Creating, reading and cancelling jobs, and their state machine: shared by both roles. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Job, JobResult]),
    AccountsModule,
    CapacityModule,
    CatalogModule,
    CreditsModule,
    IdempotencyModule,
    LiveEventsModule,
    RateLimitModule,
    ReviewsModule,
    ToolAvailabilityModule,
    StorageModule,
    WebhooksModule,
  ],
  controllers: [CreateJobsController, JobsController],
  providers: [
    JobCreationService,
    JobLifecycleService,
    JobPresenter,
    JobStateRepository,
    JobsRepository,
    JobsService,
    ResultQueueProducer,
    SegmentationModelChoice,
  ],
  exports: [JobLifecycleService, ResultQueueProducer],
})
export class JobsModule {}
