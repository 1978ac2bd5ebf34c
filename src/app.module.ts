import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ProcessRole, runsProcessors, servesHttp } from './core/bootstrap/role';
import { ConfigModule, type Connections } from './core/config/config.module';
import type { AppConfig } from './core/config/config.schema';
import { DatabaseModule } from './core/database/database.module';
import { HealthController } from './core/health/health.controller';
import { HealthModule } from './core/health/health.module';
import { ErrorFilter } from './core/http/error.filter';
import { RequestValidationPipe } from './core/http/validation.pipe';
import { LoggingModule } from './core/logging/logging.module';
import { MetricsController } from './core/metrics/metrics.controller';
import { MetricsModule } from './core/metrics/metrics.module';
import { OutboundModule } from './core/outbound/outbound.module';
import { QueueModule } from './core/queue/queue.module';
import { RedisModule } from './core/redis/redis.module';
import { SegmentationModelsModule } from './core/segmentation/segmentation-models.module';
import { AccountActivityModule } from './modules/account-activity/account-activity.module';
import { AdminModule } from './modules/admin/admin.module';
import { AccessGuard } from './modules/auth/access.guard';
import { AuthModule } from './modules/auth/auth.module';
import { CatalogModule } from './modules/catalog/catalog.module';
import { JobsModule } from './modules/jobs/jobs.module';
import { JobsWorkerModule } from './modules/jobs/worker/jobs-worker.module';
import { LiveEventStreamsModule } from './modules/live-events/live-event-streams.module';
import { UploadsModule } from './modules/uploads/uploads.module';

/** Plumbing every role needs. */
function coreImports(config: AppConfig, connections: Connections) {
  return [
    ConfigModule.forRoot(config, connections),
    LoggingModule,
    MetricsModule,
    DatabaseModule,
    RedisModule,
    SegmentationModelsModule,
    QueueModule,
    OutboundModule,
    HealthModule,
  ];
}

/** The HTTP surface: controllers, and the guard, pipe and filter every route shares. */
@Module({
  imports: [
    AuthModule,
    CatalogModule,
    JobsModule,
    UploadsModule,
    AdminModule,
    AccountActivityModule,
    LiveEventStreamsModule,
    HealthModule,
  ],
  controllers: [HealthController, MetricsController],
  providers: [
    { provide: APP_GUARD, useClass: AccessGuard },
    { provide: APP_FILTER, useClass: ErrorFilter },
    { provide: APP_PIPE, useClass: RequestValidationPipe },
  ],
})
export class ApiModule {}

/** Queue processors. Only this module lists them, so an API-only process never consumes. */
@Module({ imports: [HealthModule, JobsWorkerModule] })
export class WorkerModule {}

/** One module graph for every role; the role decides which halves are present. */
@Module({})
export class AppModule {
  static forRole(role: ProcessRole, config: AppConfig, connections: Connections): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...coreImports(config, connections),
        ...(servesHttp(role) ? [ApiModule] : []),
        ...(runsProcessors(role) ? [WorkerModule] : []),
      ],
    };
  }
}
