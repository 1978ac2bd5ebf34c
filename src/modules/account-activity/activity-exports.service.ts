import { Injectable } from '@nestjs/common';
import { csvHeader, csvRows } from '../../core/http/csv';
import { CreditsService } from '../credits/credits.service';
import { ledgerCsv } from '../credits/ledger-csv';
import type { UsageRange } from './usage-range';
import { UsageService } from './usage.service';

const USAGE_COLUMNS = ['date', 'tool', 'credits_used', 'results_completed', 'results_failed'] as const;

/** Whose data an export holds: an account, in one environment. */
export interface ExportScope {
  accountId: string;
  sandbox: boolean;
}

/** The account's ledger and usage as CSV, the same figures as the JSON reads. */
@Injectable()
export class ActivityExportsService {
  constructor(
    private readonly credits: CreditsService,
    private readonly usage: UsageService,
  ) {}

  /** The whole ledger as the key sees it, streamed (see `ledgerCsv`). */
  ledgerCsv(scope: ExportScope): Promise<AsyncIterable<string>> {
    return ledgerCsv(this.credits, scope.accountId, { sandbox: scope.sandbox });
  }

  /** One row per day and tool with results in the range, oldest day first. */
  async usageCsv(scope: ExportScope, range: UsageRange): Promise<string> {
    const rows = await this.usage.rowsOf(scope, range);
    return (
      csvHeader(USAGE_COLUMNS) +
      csvRows(rows.map((row) => [row.day, row.tool, row.creditsUsed, row.completed, row.failed]))
    );
  }
}
