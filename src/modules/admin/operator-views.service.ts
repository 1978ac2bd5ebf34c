import { Injectable } from '@nestjs/common';
import { decodeRowCursor, pageOf } from '../../core/http/row-cursor';
import { AccountsService } from '../accounts/accounts.service';
import { CreditsService } from '../credits/credits.service';
import { ledgerCsv } from '../credits/ledger-csv';
import { AccountDirectoryRepository } from './account-directory.repository';
import type { AccountListItemDto } from './account-list.dto';
import { presentAccount } from './admin.presenter';
import type { OverviewDto } from './overview.dto';
import { QueueOverviewReader } from './queue-overview.reader';
import { SettledResultsRepository } from './settled-results.repository';

/** What the operators look at rather than change: the accounts, found, and the service at a glance. */
@Injectable()
export class OperatorViewsService {
  constructor(
    private readonly directory: AccountDirectoryRepository,
    private readonly settledResults: SettledResultsRepository,
    private readonly queues: QueueOverviewReader,
    private readonly accounts: AccountsService,
    private readonly credits: CreditsService,
  ) {}

  /** The account's whole ledger as CSV, every entry (a 404 for no such account, before any of it is sent). */
  async ledgerCsv(accountId: string): Promise<AsyncIterable<string>> {
    await this.accounts.get(accountId);
    return ledgerCsv(this.credits, accountId, { sandbox: false });
  }

  async listAccounts(search: {
    query?: string;
    limit: number;
    cursor?: string;
  }): Promise<{ accounts: AccountListItemDto[]; next_cursor: string | null }> {
    const afterId = search.cursor === undefined ? undefined : decodeRowCursor(search.cursor);
    const page = pageOf(
      await this.directory.search({ query: search.query, limit: search.limit, afterId }),
      search.limit,
    );
    const keys = await this.directory.activeKeyCounts(page.items.map((account) => account.id));
    return {
      accounts: page.items.map((account) => ({ ...presentAccount(account), active_keys: keys.get(account.id) ?? 0 })),
      next_cursor: page.nextCursor,
    };
  }

  async overview(now = new Date()): Promise<OverviewDto> {
    const [queues, workers, perMinute, failures] = await Promise.all([
      this.queues.states(),
      this.queues.workers(),
      this.settledResults.perMinute(),
      this.settledResults.failuresByCode(),
    ]);
    return {
      generated_at: now.toISOString(),
      queues: queues.map(({ oldestWaitingSince, ...counts }) => ({
        ...counts,
        oldest_waiting_seconds:
          oldestWaitingSince === null
            ? null
            : Math.max(0, Math.floor((now.getTime() - oldestWaitingSince.getTime()) / 1000)),
      })),
      results_per_minute: perMinute.map((minute) => ({ ...minute, minute: minute.minute.toISOString() })),
      failures_by_code: failures,
      workers,
    };
  }
}
