import { csvHeader, csvRows } from '../../core/http/csv';
import type { CreditsService } from './credits.service';

/** Ledger entries read per statement while a CSV export streams. */
export const LEDGER_CSV_PAGE = 500;

const LEDGER_COLUMNS = ['id', 'created_at', 'kind', 'amount', 'credits', 'balance_after', 'job_id', 'reason'] as const;

/**
 * An account's whole ledger as CSV, newest first, each entry with the balance it left, read
 * page by page as it is sent so a long history is never held at once. `sandbox` keeps the
 * entries a sandbox key sees (grants and corrections).
 */
export async function* ledgerCsv(
  credits: CreditsService,
  accountId: string,
  { sandbox }: { sandbox: boolean },
): AsyncGenerator<string> {
  yield csvHeader(LEDGER_COLUMNS);
  let afterId: string | undefined;
  do {
    const rows = await credits.ledgerPage(accountId, { limit: LEDGER_CSV_PAGE, afterId, sandbox });
    const page = rows.slice(0, LEDGER_CSV_PAGE);
    if (page.length > 0) {
      yield csvRows(
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
    }
    afterId = rows.length > LEDGER_CSV_PAGE ? page[page.length - 1]?.id : undefined;
  } while (afterId !== undefined);
}
