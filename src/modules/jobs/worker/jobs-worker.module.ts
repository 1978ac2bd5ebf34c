import { HealthModule } from '../../../core/health/health.module';
import { Module } from '@nestjs/common';
import { ImageModule } from '../../../core/image/image.module';
import { SegmentationWorkerModule } from '../../../core/segmentation/segmentation.module';
import { StorageModule } from '../../../core/storage/storage.module';
import { CapacityModule } from '../../capacity/capacity.module';
import { IdempotencyModule } from '../../idempotency/idempotency.module';
import { ToolsModule } from '../../tools/tools.module';
import { UploadsWorkerModule } from '../../uploads/uploads-worker.module';
import { WebhooksWorkerModule } from '../../webhooks/worker/webhooks-worker.module';
import { JobsModule } from '../jobs.module';
import { QueueWorkersService } from './queue-workers.service';
import { ResultRetentionSweeperService } from './result-retention-sweeper.service';
import { DEFAULT_RESULT_SWEEP_LIMITS, RESULT_SWEEP_LIMITS, ResultSweeperService } from './result-sweeper.service';
import { ResultSweepsRepository } from './result-sweeps.repository';
import { ResultWorkService } from './result-work.service';

/** The consuming half: only the worker role imports it, so an API process never takes work. */
@Module({
  imports: [
    HealthModule,
    JobsModule,
    CapacityModule,
    ToolsModule,
    UploadsWorkerModule,
    ImageModule,
    SegmentationWorkerModule,
    StorageModule,
    IdempotencyModule,
    WebhooksWorkerModule,
  ],
  providers: [
    QueueWorkersService,
    ResultRetentionSweeperService,
    ResultSweeperService,
    ResultSweepsRepository,
    ResultWorkService,
    { provide: RESULT_SWEEP_LIMITS, useValue: DEFAULT_RESULT_SWEEP_LIMITS },
  ],
})
export class JobsWorkerModule {}
