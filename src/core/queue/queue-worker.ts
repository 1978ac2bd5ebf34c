import { DelayedError, WaitingError, Worker, type Job } from 'bullmq';

/**
 * What a processor throws to have the job it holds tried again after `waitMs`, counting no
 * attempt (a webhook delivery waiting for a free slot of its account, say). The worker that
 * runs the processor makes the move (`QueueWorker.postpone`).
 */
export class JobPostponed extends Error {
  constructor(readonly waitMs: number) {
    super(`the job waits ${waitMs} ms before it is tried`);
    this.name = 'JobPostponed';
  }
}

/**
 * BullMQ's worker, able to move a job its processor still holds: to the delayed set, or back to
 * the head of its queue.
 *
 * BullMQ renews the lock of every job it tracks until the processor returns. A processor that
 * moves its own job (moveToDelayed, moveToWait) deletes the lock while the job is still tracked,
 * so a renewal sent after the move finds no lock: the worker then reports "could not renew lock"
 * and a failed renewal for a job that is fine, and an operator cannot tell it from a real lapse.
 * Under load this happens many times a minute (webhook deliveries wait for their account's slots).
 * Here the job leaves the renewal before the move is sent, so no renewal follows it; one sent
 * earlier runs before it, on the same connection. BullMQ has no public way to stop renewing one
 * job, so this reaches its protected `lockManager`.
 */
export class QueueWorker extends Worker {
  /** Moves a held job to the delayed set for `waitMs`; BullMQ then counts no attempt (DelayedError). */
  async postpone(job: Job, token: string | undefined, waitMs: number): Promise<never> {
    this.stopRenewing(job);
    await job.moveToDelayed(Date.now() + waitMs, token);
    throw new DelayedError();
  }

  /**
   * Moves a held job back to the head of its queue and releases its lock, so another worker takes
   * it at once; BullMQ counts no attempt and no stall (WaitingError). Should the move fail, it
   * says so through `onMoveFailure`, and the lock, no longer renewed, lapses: the stalled check
   * gives the job to another worker.
   */
  async handBack(job: Job, token: string | undefined, onMoveFailure: (error: unknown) => void): Promise<never> {
    this.stopRenewing(job);
    await job.moveToWait(token).catch(onMoveFailure);
    throw new WaitingError();
  }

  private stopRenewing(job: Job): void {
    if (job.id !== undefined) this.lockManager.untrackJob(job.id);
  }
}
