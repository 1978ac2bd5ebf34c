import type { DataSource, EntityManager } from 'typeorm';
import { ErrorCode } from '../../core/errors/error-code';
import type { CreditMetrics } from '../../core/metrics/credit.metrics';
import type { AccountsRepository } from '../accounts/accounts.repository';
import type { IdempotencyService } from '../idempotency/idempotency.service';
import type { CreditLedgerRepository, JobCreditMovement, OperatorCreditChange } from './credit-ledger.repository';
import { LedgerEntryKind } from './credit-ledger-entry.entity';
import { CreditsService } from './credits.service';
import { refusalOf } from '../../../test/support/domain-errors';

const MAX_BALANCE = 2_147_483_647;

/** One account's balance, with the bounds the repository's conditional updates apply. */
class FakeAccounts implements Pick<
  AccountsRepository,
  'lockBalance' | 'withdraw' | 'changeBalanceWithin' | 'depositWithin'
> {
  balances = new Map<string, number>([['acc-1', 100]]);
  readonly locked: string[] = [];

  async lockBalance(_: EntityManager, accountId: string) {
    this.locked.push(accountId);
    return this.balances.get(accountId) ?? null;
  }
  async withdraw(_: EntityManager, accountId: string, credits: number) {
    const balance = this.balances.get(accountId);
    if (balance === undefined || balance < credits) return null;
    this.balances.set(accountId, balance - credits);
    return balance - credits;
  }
  async changeBalanceWithin(_: EntityManager, accountId: string, amount: number, max: number) {
    const balance = this.balances.get(accountId);
    if (balance === undefined || balance + amount < 0 || balance + amount > max) return null;
    this.balances.set(accountId, balance + amount);
    return balance + amount;
  }
  async depositWithin(_: EntityManager, accountId: string, credits: number, max: number) {
    const balance = this.balances.get(accountId);
    if (balance === undefined || balance + credits > max) return false;
    this.balances.set(accountId, balance + credits);
    return true;
  }
}

class FakeLedger implements Pick<
  CreditLedgerRepository,
  'recordJobMovement' | 'recordOperatorChange' | 'outstandingReservations'
> {
  readonly entries: Array<JobCreditMovement | OperatorCreditChange> = [];
  reserved = 0;

  async recordJobMovement(_: EntityManager, movement: JobCreditMovement) {
    this.entries.push(movement);
  }
  async recordOperatorChange(_: EntityManager, change: OperatorCreditChange) {
    this.entries.push(change);
  }
  async outstandingReservations() {
    return this.reserved;
  }
}

const manager = {} as EntityManager;
const dataSource = {
  transaction: <T>(work: (m: EntityManager) => Promise<T>) => work(manager),
} as unknown as DataSource;

describe(CreditsService.name, () => {
  let accounts: FakeAccounts;
  let ledger: FakeLedger;
  let claimed: boolean;
  let metrics: { reserved: jest.Mock; captured: jest.Mock; released: jest.Mock };
  let credits: CreditsService;
  beforeEach(() => {
    accounts = new FakeAccounts();
    ledger = new FakeLedger();
    claimed = true;
    metrics = { reserved: jest.fn(), captured: jest.fn(), released: jest.fn() };
    const idempotency = { claimOperatorRequest: async () => claimed } as unknown as IdempotencyService;
    credits = new CreditsService(
      dataSource,
      accounts as unknown as AccountsRepository,
      ledger as unknown as CreditLedgerRepository,
      idempotency,
      metrics as unknown as CreditMetrics,
    );
  });

  describe('reserve', () => {
    it("takes a job's credits out of the balance and records the reservation", async () => {
      expect(await credits.reserve(manager, 'acc-1', 'job-1', 30)).toBe(70);
      expect(ledger.entries).toEqual([
        { accountId: 'acc-1', kind: LedgerEntryKind.Reserve, amount: -30, credits: 30, jobId: 'job-1' },
      ]);
      expect(metrics.reserved).toHaveBeenCalledWith(30);
    });

    it('changes nothing when the balance is too small', async () => {
      expect(await credits.reserve(manager, 'acc-1', 'job-1', 101)).toBeNull();
      expect(accounts.balances.get('acc-1')).toBe(100);
      expect(ledger.entries).toEqual([]);
      expect(metrics.reserved).not.toHaveBeenCalled();
    });
  });

  describe('settlement', () => {
    it('captures reserved credits without moving the balance', async () => {
      await credits.capture(manager, 'acc-1', 'job-1', 5);
      expect(accounts.balances.get('acc-1')).toBe(100);
      expect(ledger.entries).toEqual([
        { accountId: 'acc-1', kind: LedgerEntryKind.Capture, amount: 0, credits: 5, jobId: 'job-1' },
      ]);
    });

    it('releases reserved credits back to the balance', async () => {
      await credits.release(manager, 'acc-1', 'job-1', 5);
      expect(accounts.balances.get('acc-1')).toBe(105);
      expect(ledger.entries).toEqual([
        { accountId: 'acc-1', kind: LedgerEntryKind.Release, amount: 5, credits: 5, jobId: 'job-1' },
      ]);
      expect(metrics.released).toHaveBeenCalledWith(5);
    });

    it('records nothing for a result that reserved nothing (sandbox)', async () => {
      await credits.capture(manager, 'acc-1', 'job-1', 0);
      await credits.release(manager, 'acc-1', 'job-1', 0);
      expect(ledger.entries).toEqual([]);
    });

    it('fails the settlement rather than clip a release that would not fit the balance', async () => {
      accounts.balances.set('acc-1', MAX_BALANCE);
      await expect(credits.release(manager, 'acc-1', 'job-1', 1)).rejects.toThrow(/above 2147483647/);
      expect(ledger.entries).toEqual([]);
    });
  });

  describe('operator changes', () => {
    it('locks the account, then grants and records the reason', async () => {
      expect(await credits.applyOperatorChange('acc-1', 50, 'top-up')).toBe(true);
      expect(accounts.locked).toEqual(['acc-1']);
      expect(accounts.balances.get('acc-1')).toBe(150);
      expect(ledger.entries).toEqual([
        { accountId: 'acc-1', amount: 50, kind: LedgerEntryKind.Grant, reason: 'top-up' },
      ]);
    });

    it('records a negative change as an adjustment', async () => {
      await credits.applyOperatorChange('acc-1', -40, 'refund reversed');
      expect(accounts.balances.get('acc-1')).toBe(60);
      expect(ledger.entries).toEqual([
        { accountId: 'acc-1', amount: -40, kind: LedgerEntryKind.Adjustment, reason: 'refund reversed' },
      ]);
    });

    it('refuses a correction below zero', async () => {
      expect((await refusalOf(credits.applyOperatorChange('acc-1', -101, 'too much'))).code).toBe(
        ErrorCode.InvalidRequest,
      );
      expect(ledger.entries).toEqual([]);
    });

    it('refuses a grant that leaves no room for the credits still reserved', async () => {
      ledger.reserved = MAX_BALANCE - 150;
      expect((await refusalOf(credits.applyOperatorChange('acc-1', 51, 'too much'))).code).toBe(
        ErrorCode.InvalidRequest,
      );
      expect(await credits.applyOperatorChange('acc-1', 50, 'fits exactly')).toBe(true);
    });

    it('answers 404 for an unknown account', async () => {
      expect((await refusalOf(credits.applyOperatorChange('nobody', 5, 'grant'))).code).toBe(ErrorCode.NotFound);
    });

    it('changes nothing for a repeated idempotent request', async () => {
      claimed = false;
      const request = { key: 'k', endpoint: 'e', requestHash: 'h', accountId: 'acc-1' };
      expect(await credits.applyOperatorChange('acc-1', 50, 'top-up', request)).toBe(false);
      expect(accounts.balances.get('acc-1')).toBe(100);
      expect(ledger.entries).toEqual([]);
    });
  });
});
