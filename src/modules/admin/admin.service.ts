import { Injectable } from '@nestjs/common';
import type { Account } from '../accounts/account.entity';
import { AccountsService, type AccountChanges } from '../accounts/accounts.service';
import type { KeyEnvironment } from '../auth/api-key.entity';
import { ApiKeysService, type IssuedKey } from '../auth/api-keys.service';
import type { CreditLedgerEntry } from '../credits/credit-ledger-entry.entity';
import { CreditsService, type NewAccount } from '../credits/credits.service';
import { hashRequestBody, type OperatorIdempotentRequest } from '../idempotency/idempotency.service';

/** The operator's actions, shared by the admin HTTP API and the `npm run admin` command line. */
@Injectable()
export class AdminService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
    private readonly credits: CreditsService,
  ) {}

  async createAccount(account: NewAccount): Promise<Account> {
    return this.accounts.get(await this.credits.openAccount(account));
  }

  getAccount(id: string): Promise<Account> {
    return this.accounts.get(id);
  }

  /** A key resolved before the change must not keep the old flags: every instance forgets the account's keys. */
  async updateAccount(id: string, changes: AccountChanges): Promise<Account> {
    if (await this.accounts.update(id, changes)) await this.apiKeys.forgetAccount(id);
    return this.accounts.get(id);
  }

  async issueKey(accountId: string, environment: KeyEnvironment, name: string | null): Promise<IssuedKey> {
    await this.accounts.get(accountId);
    return this.apiKeys.issue(accountId, environment, name);
  }

  /** Revoking twice is harmless; an unknown key is a 404. */
  async revokeKey(keyId: string): Promise<void> {
    await this.apiKeys.findById(keyId);
    await this.apiKeys.revoke(keyId);
  }

  /**
   * With an Idempotency-Key, a retry (same key, same account, same amount and reason) changes
   * nothing and answers with the account as it is now, like a replayed create (contract
   * section 9); the same key for another account or body is 409 `idempotency_conflict`.
   */
  async changeCredits(accountId: string, amount: number, reason: string, idempotencyKey?: string): Promise<Account> {
    const idempotent: OperatorIdempotentRequest | undefined =
      idempotencyKey === undefined
        ? undefined
        : {
            key: idempotencyKey,
            endpoint: `POST /admin/v1/accounts/${accountId}/credits`,
            requestHash: hashRequestBody({ amount, reason }),
            accountId,
          };
    await this.credits.applyOperatorChange(accountId, amount, reason, idempotent);
    return this.accounts.get(accountId);
  }

  async ledger(accountId: string, limit: number): Promise<CreditLedgerEntry[]> {
    await this.accounts.get(accountId);
    return this.credits.ledger(accountId, limit);
  }
}
