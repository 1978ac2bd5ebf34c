import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { CONNECTIONS, type Connections } from '../config/config.module';

/** The shared command connection (rate limits, caches, publishing). */
export const REDIS = Symbol('REDIS');
/** A connection in subscriber mode; Redis allows no other commands on it. */
export const REDIS_SUBSCRIBER = Symbol('REDIS_SUBSCRIBER');

function connect(url: string, name: string, subscriber = false): Redis {
  return new Redis(url, {
    connectionName: name,
    // The ready check sends INFO, which a connection already in subscriber mode may not send.
    enableReadyCheck: !subscriber,
    // Commands fail after a bounded wait when Redis is down, so requests answer 503, not hang.
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    // Commands issued in the same tick (rate limits, delivery slots) go out in one write.
    enableAutoPipelining: !subscriber,
  });
}

@Global()
@Module({
  providers: [
    { provide: REDIS, inject: [CONNECTIONS], useFactory: (c: Connections) => connect(c.redisUrl, 'image-jobs') },
    {
      provide: REDIS_SUBSCRIBER,
      inject: [CONNECTIONS],
      useFactory: (c: Connections) => connect(c.redisUrl, 'image-jobs-subscriber', true),
    },
  ],
  exports: [REDIS, REDIS_SUBSCRIBER],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(REDIS_SUBSCRIBER) private readonly subscriber: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.redis.quit(), this.subscriber.quit()]);
  }
}
