import { Module } from '@nestjs/common';
import { ImageModule } from '../../../core/image/image.module';
import { StorageModule } from '../../../core/storage/storage.module';
import { IdempotencyModule } from '../../idempotency/idempotency.module';
import { ToolsModule } from '../../tools/tools.module';
import { WebhooksWorkerModule } from '../../webhooks/worker/webhooks-worker.module';
import { JobsModule } from '../jobs.module';
import { QueueWorkersService } from './queue-workers.service';
import { ResultSweeperService } from './result-sweeper.service';
import { ResultWorkService } from './result-work.service';

/** The consuming half: only the worker role imports it, so an API process never takes work. */
@Module({
  imports: [JobsModule, ToolsModule, ImageModule, StorageModule, IdempotencyModule, WebhooksWorkerModule],
  providers: [QueueWorkersService, ResultSweeperService, ResultWorkService],
})
export class JobsWorkerModule {}
