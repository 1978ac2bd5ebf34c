import type { Queue } from 'bullmq';
import type { ResultWorkService } from '../../src/modules/jobs/worker/result-work.service';
import { readUntil, sleep } from './waiting';

/** Each staged step waits at most this long, so a sweep that never comes fails the test, not hangs it. */
const STEP_TIMEOUT_MS = 30_000;

/** What a worker prints once the sweeper has settled a staged result before the worker could. */
export const SWEEP_RACE_STAGED = 'sweep race staged';

interface Stage {
  entryRead: () => void;
  whenEntryRead: Promise<void>;
  read: boolean;
  /** The attempt's own error: the worker's settlement passes this one, the sweeper's another. */
  failure?: unknown;
  sweeperSettled: () => void;
  whenSweeperSettled: Promise<void>;
}

function newStage(): Stage {
  let entryRead = () => undefined as void;
  let sweeperSettled = () => undefined as void;
  const whenEntryRead = new Promise<void>((resolve) => (entryRead = resolve));
  const whenSweeperSettled = new Promise<void>((resolve) => (sweeperSettled = resolve));
  return { entryRead, whenEntryRead, read: false, sweeperSettled, whenSweeperSettled };
}

const atMost = (promise: Promise<void>, ms: number) => Promise.race([promise, sleep(ms)]);

/**
 * Makes a result's failing attempt race the sweeper, in one worker process, the way an attempt
 * that outlasts SWEEP_GRACE_SECONDS races it:
 *
 * 1. the attempt waits until the sweeper has read its queue entry (still active);
 * 2. it fails, and the sweeper's read returns only once the entry is failed, so the sweeper
 *    asks for the entry's state after the failure, holding a copy read before it;
 * 3. the worker's own settlement of the failure waits for the sweeper's, so the result is
 *    settled from what the sweeper holds.
 */
export class SweepRace {
  private readonly stages = new Map<string, Stage>();

  /** Runs a result's failing attempt once the sweeper has read the result's entry. */
  async runOnceRead<T>(resultId: string, attempt: () => Promise<T>): Promise<T> {
    const stage = newStage();
    this.stages.set(resultId, stage);
    await atMost(stage.whenEntryRead, STEP_TIMEOUT_MS);
    try {
      return await attempt();
    } catch (error) {
      stage.failure = error;
      throw error;
    }
  }

  /** The sweeper reads entries with `getJob`: its first read of a staged one lets the attempt fail. */
  holdReads(queue: Queue): void {
    const getJob = queue.getJob.bind(queue);
    queue.getJob = async (id: string) => {
      const entry = await getJob(id);
      const stage = this.stages.get(id);
      if (entry && stage && !stage.read) {
        stage.read = true;
        stage.entryRead();
        await readUntil(
          () => queue.getJobState(id),
          (state) => state === 'failed',
          `the staged entry ${id} to fail`,
          { timeoutMs: STEP_TIMEOUT_MS, intervalMs: 20 },
        );
      }
      return entry;
    };
  }

  /** Holds the worker's settlement of a staged failure until the sweeper has settled the result. */
  holdSettlements(work: ResultWorkService): void {
    const settle = work.settleFailure.bind(work);
    work.settleFailure = async (resultId: string, error: unknown) => {
      const stage = this.stages.get(resultId);
      if (!stage?.read) return settle(resultId, error);
      if (error === stage.failure) {
        await atMost(stage.whenSweeperSettled, STEP_TIMEOUT_MS);
        return settle(resultId, error);
      }
      await settle(resultId, error);
      stage.sweeperSettled();
      process.stdout.write(`${SWEEP_RACE_STAGED}: ${resultId}\n`);
    };
  }
}
