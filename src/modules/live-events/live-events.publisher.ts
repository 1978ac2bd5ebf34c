import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { afterCommit } from '../../core/database/after-commit';
import { REDIS } from '../../core/redis/redis.module';
import { liveEventsChannel, type LiveEvent } from './live-event';

/**
 * Announces status changes to the API processes' event streams (`GET /api/v1/events`), from
 * whichever process made them: an API (create, cancel) or a worker (start, settle).
 *
 * Redis pub/sub rather than API processes polling PostgreSQL: a change is published once, after
 * its transaction commits, and reaches every API process within milliseconds over the
 * subscriber connection each already holds, whatever the number of open streams; idle streams
 * cost the database nothing. Polling would cost every API process a query per interval even
 * when nothing moves, and the only change log in the database (webhook events) records
 * settlements, not starts or cancellations. Pub/sub delivers at most once: a change published
 * while an API process is cut off from Redis is lost to it, so that process tells its streams
 * to re-read everything when its subscription comes back (see LiveEventStreams). The events are
 * hints to re-read, never the data itself, so a lost one costs a stale view until that resync.
 */
@Injectable()
export class LiveEventsPublisher {
  private readonly logger = new Logger(LiveEventsPublisher.name);
  private readonly channel: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = liveEventsChannel(config.REDIS_KEY_PREFIX);
  }

  /** Publishes `events` once the transaction of `manager` has committed, and never if it rolls back. */
  afterCommit(manager: EntityManager, events: LiveEvent[]): void {
    afterCommit(manager, () => this.publish(events));
  }

  /** Fire and forget: a change that cannot be announced is still committed, and a stream's resync covers it. */
  publish(events: LiveEvent[]): void {
    for (const event of events) {
      this.redis.publish(this.channel, JSON.stringify(event)).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'a live event could not be published');
      });
    }
  }
}
