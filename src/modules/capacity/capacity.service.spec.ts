import type { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../core/config/config.schema';
import { ErrorCode } from '../../core/errors/error-code';
import { CapacityGroup } from '../catalog/tools';
import type { ActiveJobs, CapacityRepository } from './capacity.repository';
import { CapacityService, type CapacityDemand } from './capacity.service';
import { refusalOf } from '../../../test/support/domain-errors';

/** Counts and counters as the database would hold them. */
class FakeCounters implements CapacityRepository {
  active: ActiveJobs = { keyActive: 0, accountActive: 0, resultsLeft: 0 };
  accountPending = 0;
  counters = new Map<CapacityGroup, number>([
    [CapacityGroup.BackgroundRemoval, 0],
    [CapacityGroup.Processing, 0],
  ]);
  livePending = new Map<CapacityGroup, number>();
  recentlyCompleted = 0;

  async countActiveJobs() {
    return this.active;
  }
  async countAccountPendingResults() {
    return this.accountPending;
  }
  async readCounter(_: EntityManager, group: CapacityGroup) {
    return this.counters.get(group) ?? null;
  }
  async takeSlots(_: EntityManager, group: CapacityGroup, results: number, max: number) {
    const pending = this.counters.get(group) ?? 0;
    if (pending + results > max) return false;
    this.counters.set(group, pending + results);
    return true;
  }
  async releaseSlots(_: EntityManager, group: CapacityGroup, results: number) {
    this.counters.set(group, Math.max((this.counters.get(group) ?? 0) - results, 0));
  }
  async countRecentlyCompleted() {
    return this.recentlyCompleted;
  }
  async ensureCounter(_: EntityManager, group: CapacityGroup) {
    if (!this.counters.has(group)) this.counters.set(group, 0);
  }
  async lockCounter(_: EntityManager, group: CapacityGroup) {
    return this.counters.get(group) ?? 0;
  }
  async countPendingResults(_: EntityManager, group: CapacityGroup) {
    return this.livePending.get(group) ?? 0;
  }
  async setCounter(_: EntityManager, group: CapacityGroup, pending: number) {
    this.counters.set(group, pending);
  }
}

const manager = {} as EntityManager;
/** Runs each transaction at once on the one fake manager. */
const dataSource = {
  transaction: <T>(work: (m: EntityManager) => Promise<T>) => work(manager),
} as unknown as DataSource;

const config = {
  LIMIT_ACTIVE_JOBS_PER_KEY: 2,
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: 3,
  CAPACITY_MAX_PENDING_RESULTS: 100,
  CAPACITY_ACCOUNT_SHARE: 0.5,
} as AppConfig;

const live: CapacityDemand = {
  accountId: 'acc-1',
  keyId: 'key-1',
  sandbox: false,
  group: CapacityGroup.Processing,
  results: 10,
};

describe(CapacityService.name, () => {
  let counters: FakeCounters;
  let capacity: CapacityService;
  beforeEach(() => {
    counters = new FakeCounters();
    capacity = new CapacityService(config, dataSource, counters);
  });

  describe('admit', () => {
    it('admits a demand within every limit', async () => {
      await expect(capacity.admit(manager, live)).resolves.toBeUndefined();
    });

    it("refuses at the key's active-job limit, naming the key", async () => {
      counters.active = { keyActive: 2, accountActive: 2, resultsLeft: 4 };
      const refusal = await refusalOf(capacity.admit(manager, live));
      expect(refusal.code).toBe(ErrorCode.TooManyActiveJobs);
      expect(refusal.details).toEqual({ scope: 'key', active_jobs: 2 });
    });

    it("refuses at the account's active-job limit, naming the account", async () => {
      counters.active = { keyActive: 1, accountActive: 3, resultsLeft: 4 };
      const refusal = await refusalOf(capacity.admit(manager, live));
      expect(refusal.details).toEqual({ scope: 'account', active_jobs: 3 });
    });

    it("refuses beyond the account's share of the group", async () => {
      counters.accountPending = 45;
      const refusal = await refusalOf(capacity.admit(manager, live));
      expect(refusal.code).toBe(ErrorCode.TooManyPendingResults);
      expect(refusal.details).toEqual({
        group: CapacityGroup.Processing,
        pending_results: 45,
        requested_results: 10,
        limit: 50,
      });
    });

    it('refuses when the group is full', async () => {
      counters.counters.set(CapacityGroup.Processing, 95);
      expect((await refusalOf(capacity.admit(manager, live))).code).toBe(ErrorCode.CapacityUnavailable);
    });

    it('counts sandbox demands against active jobs only', async () => {
      counters.accountPending = 1000;
      counters.counters.set(CapacityGroup.Processing, 1000);
      await expect(capacity.admit(manager, { ...live, sandbox: true })).resolves.toBeUndefined();
      counters.active = { keyActive: 2, accountActive: 2, resultsLeft: 1 };
      expect((await refusalOf(capacity.admit(manager, { ...live, sandbox: true }))).code).toBe(
        ErrorCode.TooManyActiveJobs,
      );
    });

    it('asks for a wait from the recent pace, within 1 to 600 seconds, and 30 without a pace', async () => {
      counters.active = { keyActive: 2, accountActive: 2, resultsLeft: 60 };
      expect((await refusalOf(capacity.admit(manager, live))).retryAfterSeconds).toBe(30);
      counters.recentlyCompleted = 300; // one a second
      expect((await refusalOf(capacity.admit(manager, live))).retryAfterSeconds).toBe(60);
      counters.recentlyCompleted = 1;
      expect((await refusalOf(capacity.admit(manager, live))).retryAfterSeconds).toBe(600);
      counters.recentlyCompleted = 300_000;
      expect((await refusalOf(capacity.admit(manager, live))).retryAfterSeconds).toBe(1);
    });
  });

  describe('reserve and release', () => {
    it("takes the demand's slots, and refuses the demand that does not fit", async () => {
      counters.counters.set(CapacityGroup.Processing, 85);
      await capacity.reserve(manager, live);
      expect(counters.counters.get(CapacityGroup.Processing)).toBe(95);
      expect((await refusalOf(capacity.reserve(manager, live))).code).toBe(ErrorCode.CapacityUnavailable);
      expect(counters.counters.get(CapacityGroup.Processing)).toBe(95);
    });

    it('takes no slots for a sandbox demand', async () => {
      await capacity.reserve(manager, { ...live, sandbox: true });
      expect(counters.counters.get(CapacityGroup.Processing)).toBe(0);
    });

    it('gives slots back, never below zero, and does nothing for none', async () => {
      counters.counters.set(CapacityGroup.Processing, 3);
      const released = jest.spyOn(counters, 'releaseSlots');
      await capacity.release(manager, CapacityGroup.Processing, 0);
      expect(released).not.toHaveBeenCalled();
      await capacity.release(manager, CapacityGroup.Processing, 5);
      expect(counters.counters.get(CapacityGroup.Processing)).toBe(0);
    });
  });

  it('reconciles each group to the results actually pending, reporting those that drifted', async () => {
    counters.counters.set(CapacityGroup.Processing, 7);
    counters.livePending.set(CapacityGroup.Processing, 4);
    expect(await capacity.reconcile()).toEqual([{ group: CapacityGroup.Processing, counted: 4, was: 7 }]);
    expect(counters.counters.get(CapacityGroup.Processing)).toBe(4);
  });
});
