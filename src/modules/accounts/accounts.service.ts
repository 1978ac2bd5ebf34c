import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../../core/errors/domain-error';
import { ApiKeysService } from '../auth/api-keys.service';
import { LedgerEntryKind } from '../credits/credit-ledger-entry.entity';
import { CreditsService } from '../credits/credits.service';
import type { Account } from './account.entity';
import { AccountsRepository, type AccountPatch } from './accounts.repository';

export interface NewAccount {
  name: string;
  credits: number;
  apiAccess: boolean;
}

export interface AccountChanges {
  apiAccess?: boolean;
  /** `null` lifts a restriction; `undefined` leaves it as it is. */
  restrictedUntil?: Date | null;
}

@Injectable()
export class AccountsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly credits: CreditsService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** The account and its opening grant are one transaction: no account without its ledger. */
  async create({ name, credits, apiAccess }: NewAccount): Promise<Account> {
    const id = await this.dataSource.transaction(async (manager) => {
      const account = await this.accounts.insertEmpty(manager, { name, apiAccess });
      if (credits > 0) {
        await this.credits.changeBalance(manager, {
          accountId: account.id,
          amount: credits,
          kind: LedgerEntryKind.Grant,
          reason: 'opening balance',
        });
      }
      return account.id;
    });
    return this.get(id);
  }

  async get(id: string): Promise<Account> {
    const account = await this.accounts.findById(id);
    if (!account) throw DomainError.notFound('account');
    return account;
  }

  async update(id: string, changes: AccountChanges): Promise<Account> {
    const patch: AccountPatch = {};
    if (changes.apiAccess !== undefined) patch.apiAccess = changes.apiAccess;
    if (changes.restrictedUntil !== undefined) patch.restrictedUntil = changes.restrictedUntil;
    await this.get(id);
    if (Object.keys(patch).length > 0) {
      await this.accounts.update(id, patch);
      await this.apiKeys.forgetAccount(id);
    }
    return this.get(id);
  }
}
