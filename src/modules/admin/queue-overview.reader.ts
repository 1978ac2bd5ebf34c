import { getQueueToken } from '@nestjs/bullmq';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { ModelQueues } from '../../core/queue/model-queues';
import { ALL_QUEUES } from '../../core/queue/queue-name';

export interface QueueState {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** When the entry that has waited longest was added; null when none waits. */
  oldestWaitingSince: Date | null;
}

export interface ConnectedWorker {
  /** The name a worker process gives its connections (`host:pid`). */
  name: string;
  /** The addresses its connections come from, as Redis sees them. */
  addresses: string[];
  /** The queues it consumes. */
  queues: string[];
}

/**
 * How long the overview waits for Redis. BullMQ's producer connections retry commands while
 * Redis is away, and an operator looking at a stalled service must hear that, not wait on it.
 */
const QUEUE_READ_DEADLINE_MS = 3000;
const RETRY_AFTER_SECONDS = 5;

/** `work`, or a 503 `service_unavailable` once the deadline passes without an answer. */
async function withinDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DomainError(
            ErrorCode.ServiceUnavailable,
            'The queues cannot be read now (Redis does not answer). Retry later.',
            undefined,
            RETRY_AFTER_SECONDS,
          ),
        ),
      QUEUE_READ_DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** What BullMQ names a worker's Redis connection: `<prefix>:<queue, base64>:w:<worker name>`. */
const WORKER_NAME_MARK = ':w:';

/**
 * Reads each queue's depth and the workers connected to it from BullMQ, for the operators'
 * overview: a few round trips per queue, when an operator asks.
 */
@Injectable()
export class QueueOverviewReader implements OnModuleInit {
  private queues: Queue[] = [];

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly modelQueues: ModelQueues,
  ) {}

  onModuleInit(): void {
    this.queues = [
      ...ALL_QUEUES.map((name) => this.moduleRef.get<Queue>(getQueueToken(name), { strict: false })),
      ...this.modelQueues.all(),
    ];
  }

  states(): Promise<QueueState[]> {
    return withinDeadline(this.readStates());
  }

  /** The workers connected now, each once with every queue it consumes, by name. */
  workers(): Promise<ConnectedWorker[]> {
    return withinDeadline(this.readWorkers());
  }

  private readStates(): Promise<QueueState[]> {
    return Promise.all(
      this.queues.map(async (queue) => {
        const [counts, [oldest]] = await Promise.all([
          queue.getJobCounts('waiting', 'active', 'delayed', 'failed'),
          // The wait list's far end holds the entry added first; `asc` reads from there.
          queue.getJobs(['waiting'], 0, 0, true),
        ]);
        return {
          name: queue.name,
          waiting: counts.waiting ?? 0,
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          oldestWaitingSince: oldest ? new Date(oldest.timestamp) : null,
        };
      }),
    );
  }

  private async readWorkers(): Promise<ConnectedWorker[]> {
    const clientsByQueue = await Promise.all(
      this.queues.map(async (queue) => ({ queue: queue.name, clients: await queue.getWorkers() })),
    );
    const byName = new Map<string, { addresses: Set<string>; queues: Set<string> }>();
    for (const { queue, clients } of clientsByQueue) {
      for (const client of clients) {
        const rawName = client.rawname ?? '';
        const mark = rawName.indexOf(WORKER_NAME_MARK);
        const name = mark === -1 ? '(unnamed)' : rawName.slice(mark + WORKER_NAME_MARK.length);
        let worker = byName.get(name);
        if (!worker) byName.set(name, (worker = { addresses: new Set(), queues: new Set() }));
        if (client.addr) worker.addresses.add(client.addr);
        worker.queues.add(queue);
      }
    }
    return [...byName.entries()]
      .map(([name, { addresses, queues }]) => ({ name, addresses: [...addresses].sort(), queues: [...queues].sort() }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
