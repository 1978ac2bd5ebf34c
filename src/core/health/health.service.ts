import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '../redis/redis.module';

const CHECK_TIMEOUT_MS = 2000;

/** `starting`: a part of this process that is still getting ready (a model session warming up). */
export type CheckState = 'up' | 'down' | 'starting';

export interface Readiness {
  ready: boolean;
  checks: { database: CheckState; redis: CheckState } & Record<string, CheckState>;
}

/** What `/health/ready` answers, on the API and on a worker's health port alike. */
export interface ReadinessReply {
  httpStatus: 200 | 503;
  body: { status: 'ok' | 'unavailable' | 'draining'; checks?: Readiness['checks'] };
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error('health check timed out')), CHECK_TIMEOUT_MS).unref(),
    ),
  ]);
}

/**
 * Readiness is two round trips (PostgreSQL `SELECT 1`, Redis `PING`) plus whatever parts of
 * the process registered a check of their own; written here rather than with a health-check
 * library so the API and the worker's plain health port share it.
 */
@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  private readonly localChecks = new Map<string, () => CheckState>();
  private readonly localFacts = new Map<string, () => unknown>();
  private drainStartedAt: number | undefined;
  private readonly drainListeners: Array<() => void> = [];

  /**
   * From the shutdown signal on, readiness answers 503 `draining` at once, without asking the
   * dependencies (whose pools are about to close), so load balancers stop routing here while
   * the process still serves; liveness is unaffected.
   */
  startDraining(): void {
    if (this.drainStartedAt !== undefined) return;
    this.drainStartedAt = Date.now();
    for (const listener of this.drainListeners) listener();
  }

  /**
   * `listener` runs once, when the shutdown begins: for a part that must stop at the signal
   * rather than when the application closes (the worker stops taking jobs at once, while the
   * API side of role `all` still drains its connections).
   */
  whenDraining(listener: () => void): void {
    this.drainListeners.push(listener);
  }

  /**
   * When the shutdown began (epoch milliseconds), if it has: the grace period counts from here,
   * so a part that closes later (the worker side of role `all`, after the HTTP drain) can tell
   * how much of it is left.
   */
  get drainingSince(): number | undefined {
    return this.drainStartedAt;
  }

  /** A part of this process that must be up before the process counts as ready. */
  addCheck(name: string, state: () => CheckState): void {
    this.localChecks.set(name, state);
  }

  /** Something `/health` shows about this process beside its Node.js release (which model runs on which provider). */
  addFact(name: string, value: () => unknown): void {
    this.localFacts.set(name, value);
  }

  /** What `/health` answers, on the API and on a worker's health port alike. */
  about(): Record<string, unknown> {
    const facts = Object.fromEntries([...this.localFacts].map(([name, value]) => [name, value()]));
    return { status: 'ok', node: process.version, ...facts };
  }

  async readiness(): Promise<Readiness> {
    const [database, redis] = await Promise.all([
      this.probe(() => this.dataSource.query('SELECT 1')),
      this.probe(() => this.redis.ping()),
    ]);
    const checks = {
      database,
      redis,
      ...Object.fromEntries([...this.localChecks].map(([name, state]) => [name, state()])),
    };
    return { ready: Object.values(checks).every((state) => state === 'up'), checks };
  }

  async readinessReply(): Promise<ReadinessReply> {
    if (this.drainStartedAt !== undefined) return { httpStatus: 503, body: { status: 'draining' } };
    const { ready, checks } = await this.readiness();
    return { httpStatus: ready ? 200 : 503, body: { status: ready ? 'ok' : 'unavailable', checks } };
  }

  private async probe(check: () => Promise<unknown>): Promise<CheckState> {
    try {
      await withTimeout(check());
      return 'up';
    } catch {
      return 'down';
    }
  }
}
