import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { Global, Injectable, Logger, Module, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { ConnectionOptions, Queue } from 'bullmq';
import { APP_CONFIG, CONNECTIONS, type Connections } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { QueueDepthMetrics } from './queue-depth.metrics';
import { connectionSettled } from './connection-settled';
import { ALL_QUEUES, type QueueName } from './queue-name';

/** Where BullMQ keeps its keys, shared by producers (through BullModule) and workers. */
export const QUEUE_CONNECTION = Symbol('QUEUE_CONNECTION');

export interface QueueConnection {
  connection: ConnectionOptions;
  prefix: string;
}

export function queueConnection(config: AppConfig, connections: Connections): QueueConnection {
  const url = new URL(connections.redisUrl);
  return {
    prefix: `${config.REDIS_KEY_PREFIX}:bull`,
    connection: {
      host: url.hostname,
      port: Number(url.port || 6379),
      username: decodeURIComponent(url.username) || undefined,
      password: decodeURIComponent(url.password) || undefined,
      db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
      tls: url.protocol === 'rediss:' ? {} : undefined,
    },
  };
}

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

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    for (const [name, queue] of this.queues()) {
      queue.on('error', (error) => this.logger.warn({ err: error, queue: name }, 'queue connection error'));
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.queues().map(([, queue]) => connectionSettled(queue)));
  }

  private queues(): [QueueName, Queue][] {
    return ALL_QUEUES.map((name) => [name, this.moduleRef.get<Queue>(getQueueToken(name), { strict: false })]);
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
  ],
  exports: [registeredQueues, QUEUE_CONNECTION],
})
export class QueueModule {}
