import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { HealthService } from '../../core/health/health.service';
import { REDIS_SUBSCRIBER } from '../../core/redis/redis.module';
import { KeyEnvironment } from '../auth/api-key.entity';
import { ApiKeysService, type KeyInvalidation } from '../auth/api-keys.service';
import type { AuthContext } from '../auth/auth-context';
import { liveEventsChannel, LiveEventType, type LiveEvent } from './live-event';

/**
 * Bytes a stream may have waiting to be sent: a client that stops reading is cut off rather
 * than held in memory. Far above what a burst of status changes makes (about 150 bytes each).
 */
const MAX_UNSENT_BYTES = 256 * 1024;
/** How soon a client reconnects after a stream ends (the SSE `retry` field). */
const RECONNECT_MS = 2000;

interface OpenStream {
  keyId: string;
  accountId: string;
  sandbox: boolean;
  res: Response;
  heartbeat: NodeJS.Timeout;
}

/** One SSE message: an event name and its JSON data. */
const message = (event: string, data: Record<string, unknown>) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The open event streams of this API process: each hears the status changes of its key's
 * account and environment, as LiveEventsPublisher announces them over Redis. One subscription
 * (on the subscriber connection the process already holds) serves every stream.
 *
 * At most LIVE_EVENTS_MAX_STREAMS_PER_KEY streams per key, counted per process (a stream lives
 * on one connection to one process, and a count here needs no shared state a crash could leave
 * behind). Every stream ends when the process starts draining: a stream never finishes by
 * itself, so the HTTP drain, which waits for every request in flight, would otherwise wait for
 * the whole grace period. The client reconnects (to another instance behind the load balancer).
 */
@Injectable()
export class LiveEventStreams implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(LiveEventStreams.name);
  private readonly channel: string;
  private readonly byAccount = new Map<string, Set<OpenStream>>();
  private readonly openPerKey = new Map<string, number>();
  private subscribedOnce = false;
  private closing = false;

  constructor(
    @Inject(REDIS_SUBSCRIBER) private readonly subscriber: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly health: HealthService,
    private readonly keys: ApiKeysService,
  ) {
    this.channel = liveEventsChannel(config.REDIS_KEY_PREFIX);
  }

  async onModuleInit(): Promise<void> {
    this.subscriber.on('message', this.onMessage);
    this.subscriber.on('ready', this.onResubscribed);
    this.health.whenDraining(() => this.closeAll());
    this.keys.whenInvalidated((match) => this.closeInvalidated(match));
    this.keys.whenInvalidationsMissed(() => void this.closeStreamsOfRefusedKeys());
    await this.subscriber.subscribe(this.channel);
    this.subscribedOnce = true;
  }

  beforeApplicationShutdown(): void {
    this.closeAll();
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber.off('message', this.onMessage);
    this.subscriber.off('ready', this.onResubscribed);
    await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }

  /**
   * Starts the stream of `caller` on `res`, or refuses it: 503 while the process is stopping,
   * 429 when the key already holds its limit of streams.
   */
  open(caller: AuthContext, res: Response, requestId: string): void {
    if (this.closing) {
      throw new DomainError(ErrorCode.ServiceUnavailable, 'This instance is shutting down; reconnect.', undefined, 1);
    }
    const limit = this.config.LIVE_EVENTS_MAX_STREAMS_PER_KEY;
    const open = this.openPerKey.get(caller.keyId) ?? 0;
    if (open >= limit) {
      throw new DomainError(
        ErrorCode.RateLimitExceeded,
        `At most ${limit} event streams may be open at once per API key; close one first.`,
        { scope: 'key', limit },
        this.config.LIVE_EVENTS_HEARTBEAT_SECONDS,
      );
    }
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    // Proxies that buffer responses (nginx) pass this one through as it comes.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    const heartbeatMs = this.config.LIVE_EVENTS_HEARTBEAT_SECONDS * 1000;
    const stream: OpenStream = {
      keyId: caller.keyId,
      accountId: caller.accountId,
      sandbox: caller.environment === KeyEnvironment.Sandbox,
      res,
      heartbeat: setInterval(() => this.send(stream, ': heartbeat\n\n'), heartbeatMs),
    };
    this.openPerKey.set(caller.keyId, open + 1);
    let streams = this.byAccount.get(caller.accountId);
    if (!streams) this.byAccount.set(caller.accountId, (streams = new Set()));
    streams.add(stream);
    res.once('close', () => this.forget(stream));
    this.send(stream, `retry: ${RECONNECT_MS}\n` + message('ready', { request_id: requestId }));
  }

  private forget(stream: OpenStream): void {
    clearInterval(stream.heartbeat);
    const streams = this.byAccount.get(stream.accountId);
    if (!streams?.delete(stream)) return;
    if (streams.size === 0) this.byAccount.delete(stream.accountId);
    const open = (this.openPerKey.get(stream.keyId) ?? 1) - 1;
    if (open > 0) this.openPerKey.set(stream.keyId, open);
    else this.openPerKey.delete(stream.keyId);
  }

  private send(stream: OpenStream, text: string): void {
    if (stream.res.writableEnded) return;
    if (stream.res.writableLength > MAX_UNSENT_BYTES) {
      this.logger.warn({ keyId: stream.keyId }, 'an event stream fell too far behind; closing it');
      stream.res.destroy();
      return;
    }
    stream.res.write(text);
  }

  /** Ends every stream, telling its client why; from now on new streams are refused. */
  private closeAll(): void {
    this.closing = true;
    for (const streams of [...this.byAccount.values()]) {
      for (const stream of [...streams]) this.end(stream, 'shutdown');
    }
  }

  /**
   * A key revoked, or its account's access changed: its streams end, so a revoked key hears
   * nothing more, and the client's reconnection is authenticated afresh (401 or 403 if refused).
   */
  private closeInvalidated(match: KeyInvalidation): void {
    for (const streams of [...this.byAccount.values()]) {
      for (const stream of [...streams]) {
        if (stream.keyId === match.keyId || stream.accountId === match.accountId)
          this.end(stream, 'credentials_changed');
      }
    }
  }

  /**
   * Revocations and account changes published while this process's subscription was down never
   * arrived, so the keys of the open streams are read again from the database: the streams of
   * keys revoked or refused since end, the others stay open. If the database cannot say, every
   * stream ends, and each client's reconnection is authenticated afresh.
   */
  private async closeStreamsOfRefusedKeys(): Promise<void> {
    // Streams opened from now on were authenticated after the subscription came back.
    const streams = [...this.byAccount.values()].flatMap((opened) => [...opened]);
    if (streams.length === 0) return;
    let accepted: Set<string>;
    try {
      accepted = await this.keys.acceptedKeyIds([...new Set(streams.map((stream) => stream.keyId))]);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not check the keys of the open event streams; ending them all');
      accepted = new Set();
    }
    for (const stream of streams) {
      const stillOpen = this.byAccount.get(stream.accountId)?.has(stream) ?? false;
      if (stillOpen && !accepted.has(stream.keyId)) this.end(stream, 'credentials_changed');
    }
  }

  private end(stream: OpenStream, reason: string): void {
    this.send(stream, message('closing', { reason }));
    stream.res.end();
    this.forget(stream);
  }

  private readonly onMessage = (channel: string, text: string): void => {
    if (channel !== this.channel) return;
    let event: LiveEvent;
    try {
      event = JSON.parse(text) as LiveEvent;
    } catch (error) {
      this.logger.warn({ err: error }, 'ignored a malformed live event');
      return;
    }
    const streams = this.byAccount.get(event.accountId);
    if (!streams) return;
    const data =
      event.type === LiveEventType.Job
        ? { job_id: event.jobId, status: event.status }
        : { job_id: event.jobId, result_id: event.resultId, status: event.status };
    const sent = message(event.type, data);
    for (const stream of streams) if (stream.sandbox === event.sandbox) this.send(stream, sent);
  };

  /**
   * The subscriber connection came back after losing Redis: changes published meanwhile never
   * reached this process, so every stream's client is told to re-read what it shows. ioredis
   * emits `ready` before it subscribes again, so the channel is subscribed once more (a no-op
   * for Redis) and the resync waits for its reply: from then on no change is missed.
   */
  private readonly onResubscribed = (): void => {
    if (!this.subscribedOnce) return;
    this.subscriber.subscribe(this.channel).then(
      () => {
        for (const streams of this.byAccount.values()) {
          for (const stream of streams) this.send(stream, message('resync', {}));
        }
      },
      (error: unknown) => this.logger.warn({ err: error }, 'resubscribing to live events failed'),
    );
  };
}
