import { csvHeader, csvRows } from '../../core/http/csv';
import type { CreditsService } from './credits.service';
import type { LedgerEntryWithBalance } from './credit-ledger.repository';

/** Ledger entries read per statement while a CSV export streams. */
export const LEDGER_CSV_PAGE = 500;

const LEDGER_COLUMNS = ['id', 'created_at', 'kind', 'amount', 'credits', 'balance_after', 'job_id', 'reason'] as const;

const rowsOf = (page: LedgerEntryWithBalance[]): string =>
  csvRows(
    page.map((entry) => [
      entry.id,
      entry.createdAt.toISOString(),
      entry.kind,
      entry.amount,
      entry.credits,
      entry.balanceAfter,
      entry.jobId,
      entry.reason,
    ]),
  );

/**
 * An account's whole ledger as CSV, newest first, each entry with the balance it left, read
 * page by page as it is sent so a long history is never held at once. `sandbox` keeps the
 * entries a sandbox key sees (grants and corrections). The first page is read before this
 * resolves, so a database that cannot answer is an error response, not a file cut short.
 */
export async function ledgerCsv(
  credits: CreditsService,
  accountId: string,
  { sandbox }: { sandbox: boolean },
): Promise<AsyncIterable<string>> {
  const read = (afterId?: string) => credits.ledgerPage(accountId, { limit: LEDGER_CSV_PAGE, afterId, sandbox });
  const first = await read();
  return (async function* () {
    yield csvHeader(LEDGER_COLUMNS);
    let rows = first;
    for (;;) {
      const page = rows.slice(0, LEDGER_CSV_PAGE);
      if (page.length > 0) yield rowsOf(page);
      const last = page[page.length - 1];
      if (rows.length <= LEDGER_CSV_PAGE || !last) return;
      rows = await read(last.id);
    }
  })();
}
