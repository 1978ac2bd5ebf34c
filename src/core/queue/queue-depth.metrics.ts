import { getQueueToken } from '@nestjs/bullmq';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { Gauge, Registry } from 'prom-client';
import { ModelQueues } from './model-queues';
import { ALL_QUEUES } from './queue-name';
import { metricsOf } from '../metrics/registered-metrics';

/** The queue states a depth is reported for. */
const STATES = ['waiting', 'active', 'delayed'] as const;

/** A scrape must answer while Redis does not: the depths are then left out, the rest still reported. */
const COUNT_TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error('queue counts timed out')), COUNT_TIMEOUT_MS).unref(),
    ),
  ]);
}

/**
 * Entries per queue and state, read from BullMQ when Prometheus scrapes (one round trip per
 * queue), so nothing is counted on the paths that add or take work. Every process reads the
 * same Redis: an API cluster reports the maximum over its processes rather than their sum, and
 * dashboards take `max by (queue, state)` over instances.
 */
@Injectable()
export class QueueDepthMetrics implements OnModuleInit {
  private readonly logger = new Logger(QueueDepthMetrics.name);
  private readonly depth: Gauge<'queue' | 'state'>;
  private queues: Array<{ name: string; queue: Queue }> = [];

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly modelQueues: ModelQueues,
    registry: Registry,
  ) {
    this.depth = metricsOf(registry).gauge({
      name: 'imgjobs_queue_jobs',
      help: 'Queue entries by queue and state (waiting, active, delayed), read at scrape time.',
      labelNames: ['queue', 'state'],
      aggregator: 'max',
      collect: () => this.readDepths(),
    });
  }

  onModuleInit(): void {
    this.queues = [
      ...ALL_QUEUES.map((name) => ({ name, queue: this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }) })),
      ...this.modelQueues.all().map((queue) => ({ name: queue.name, queue })),
    ];
  }

  private async readDepths(): Promise<void> {
    this.depth.reset();
    await Promise.all(
      this.queues.map(async ({ name, queue }) => {
        try {
          const counts = await withTimeout(queue.getJobCounts(...STATES));
          for (const state of STATES) this.depth.set({ queue: name, state }, counts[state] ?? 0);
        } catch (error) {
          this.logger.warn({ err: error, queue: name }, 'could not read the queue depth for metrics');
        }
      }),
    );
  }
}
