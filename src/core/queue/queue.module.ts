import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { Global, Injectable, Logger, Module, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { APP_CONFIG, CONNECTIONS } from '../config/config.module';
import { QueueDepthMetrics } from './queue-depth.metrics';
import { connectionSettled } from './connection-settled';
import { ModelQueues } from './model-queues';
import { QUEUE_CONNECTION, queueConnection } from './queue-connection';
import { ALL_QUEUES } from './queue-name';

/**
 * A queue without an `error` listener prints every failed reconnection to the console, stack
 * and all, while Redis is down. They go to the log instead, once per attempt, as warnings: the
 * connection retries by itself and requests meanwhile answer 503. At shutdown, before
 * BullModule closes the queues (`onApplicationShutdown`), each is given a moment to finish
 * connecting (see `connectionSettled`).
 */
@Injectable()
class QueueConnectionKeeper implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('QueueConnection');

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly modelQueues: ModelQueues,
  ) {}

  onModuleInit(): void {
    for (const [name, queue] of this.queues()) {
      queue.on('error', (error) => this.logger.warn({ err: error, queue: name }, 'queue connection error'));
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.queues().map(([, queue]) => connectionSettled(queue)));
  }

  /** The registered queues and the segmentation models' (ModelQueues closes those itself). */
  private queues(): [string, Queue][] {
    return [
      ...ALL_QUEUES.map((name): [string, Queue] => [
        name,
        this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }),
      ]),
      ...this.modelQueues.all().map((queue): [string, Queue] => [queue.name, queue]),
    ];
  }
}

const registeredQueues = BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name })));

/** BullMQ on the service's Redis, with every queue registered for producers and Bull Board. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({ inject: [APP_CONFIG, CONNECTIONS], useFactory: queueConnection }),
    registeredQueues,
  ],
  providers: [
    { provide: QUEUE_CONNECTION, inject: [APP_CONFIG, CONNECTIONS], useFactory: queueConnection },
    QueueConnectionKeeper,
    QueueDepthMetrics,
    ModelQueues,
  ],
  exports: [registeredQueues, QUEUE_CONNECTION, ModelQueues],
})
export class QueueModule {}
