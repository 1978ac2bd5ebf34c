import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { preparedStatement, runPrepared } from '../../core/database/prepared-statement';
import type { CapacityGroup } from '../catalog/tools';

/** An account's jobs not yet ended, and the results they still have to settle. */
export interface ActiveJobs {
  /** Of the API key asking. */
  keyActive: number;
  accountActive: number;
  resultsLeft: number;
}

const PENDING = `status IN ('queued', 'processing')`;

const ACTIVE_JOBS = preparedStatement(
  'capacity_active_jobs',
  `SELECT count(*) FILTER (WHERE api_key_id = $2)::int AS key_active,
          count(*)::int AS account_active,
          coalesce(sum(total_results - completed_results - failed_results - cancelled_results), 0)::int AS results_left
     FROM jobs WHERE account_id = $1 AND ${PENDING}`,
);

const ACCOUNT_PENDING_RESULTS = preparedStatement(
  'capacity_account_pending_results',
  `SELECT count(*)::int AS pending FROM job_results
    WHERE capacity_group = $1 AND account_id = $2 AND ${PENDING} AND NOT sandbox`,
);

const GROUP_PENDING = preparedStatement(
  'capacity_group_pending',
  `SELECT pending_results FROM capacity_groups WHERE name = $1`,
);

/** A conditional update, so no two creates take the same last slot. */
const TAKE_SLOTS = preparedStatement(
  'capacity_take_slots',
  `UPDATE capacity_groups SET pending_results = pending_results + $2
    WHERE name = $1 AND pending_results + $2 <= $3
    RETURNING pending_results`,
);

/** Every statement on the capacity groups' counters and the counts admission reads, in the caller's transaction. */
@Injectable()
export class CapacityRepository {
  async countActiveJobs(manager: EntityManager, accountId: string, keyId: string): Promise<ActiveJobs> {
    const [row] = await runPrepared<{ key_active: number; account_active: number; results_left: number }>(
      manager,
      ACTIVE_JOBS,
      [accountId, keyId],
    );
    return { keyActive: row.key_active, accountActive: row.account_active, resultsLeft: row.results_left };
  }

  /** The account's live results pending in the group. */
  async countAccountPendingResults(manager: EntityManager, group: CapacityGroup, accountId: string): Promise<number> {
    const [row] = await runPrepared<{ pending: number }>(manager, ACCOUNT_PENDING_RESULTS, [group, accountId]);
    return row.pending;
  }

  /** The group's counter, read without a lock; null when the group has no counter row. */
  async readCounter(manager: EntityManager, group: CapacityGroup): Promise<number | null> {
    const [row] = await runPrepared<{ pending_results: number }>(manager, GROUP_PENDING, [group]);
    return row?.pending_results ?? null;
  }

  /** Adds `results` to the group's counter if it stays at most `max`: false (nothing changed) if not. */
  async takeSlots(manager: EntityManager, group: CapacityGroup, results: number, max: number): Promise<boolean> {
    const taken = await runPrepared(manager, TAKE_SLOTS, [group, results, max]);
    return taken.length > 0;
  }

  /** Takes `results` off the group's counter, never below zero. */
  async releaseSlots(manager: EntityManager, group: CapacityGroup, results: number): Promise<void> {
    await manager.query(
      `UPDATE capacity_groups SET pending_results = greatest(pending_results - $2, 0) WHERE name = $1`,
      [group, results],
    );
  }

  /** The group's results completed in the last `windowSeconds`. */
  async countRecentlyCompleted(manager: EntityManager, group: CapacityGroup, windowSeconds: number): Promise<number> {
    const [recent]: Array<{ finished: number }> = await manager.query(
      `SELECT count(*)::int AS finished FROM job_results
        WHERE capacity_group = $1 AND completed_at > now() - make_interval(secs => $2)`,
      [group, windowSeconds],
    );
    return recent.finished;
  }

  /** Creates the group's counter row at zero if it has none. */
  async ensureCounter(manager: EntityManager, group: CapacityGroup): Promise<void> {
    await manager.query(
      `INSERT INTO capacity_groups (name, pending_results) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`,
      [group],
    );
  }

  /** Locks the group's counter row until the transaction ends and returns it. */
  async lockCounter(manager: EntityManager, group: CapacityGroup): Promise<number> {
    const [row]: Array<{ pending_results: number }> = await manager.query(
      `SELECT pending_results FROM capacity_groups WHERE name = $1 FOR UPDATE`,
      [group],
    );
    return row.pending_results;
  }

  /** The group's live results actually pending, every account's. */
  async countPendingResults(manager: EntityManager, group: CapacityGroup): Promise<number> {
    const [actual]: Array<{ pending: number }> = await manager.query(
      `SELECT count(*)::int AS pending FROM job_results WHERE capacity_group = $1 AND ${PENDING} AND NOT sandbox`,
      [group],
    );
    return actual.pending;
  }

  async setCounter(manager: EntityManager, group: CapacityGroup, pending: number): Promise<void> {
    await manager.query(`UPDATE capacity_groups SET pending_results = $2 WHERE name = $1`, [group, pending]);
  }
}
