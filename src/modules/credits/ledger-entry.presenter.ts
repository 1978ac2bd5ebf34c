import type { CreditLedgerEntry } from './credit-ledger-entry.entity';

/** The members of a ledger entry every ledger the API shows has (the operator's, and the account's own). */
export type LedgerEntryFields = Pick<
  CreditLedgerEntry,
  'id' | 'kind' | 'amount' | 'credits' | 'jobId' | 'reason' | 'createdAt'
>;

/** A ledger entry as the API shows it; the account's own ledger adds the balance it left. */
export function presentLedgerEntry(entry: LedgerEntryFields) {
  return {
    id: entry.id,
    kind: entry.kind,
    amount: entry.amount,
    credits: entry.credits,
    job_id: entry.jobId,
    reason: entry.reason,
    created_at: entry.createdAt.toISOString(),
  };
}
