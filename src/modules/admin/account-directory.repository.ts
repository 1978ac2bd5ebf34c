import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { Account } from '../accounts/account.entity';

/** The display prefix every key starts with (`sk_live_…`, `sk_sandbox_…`). */
const KEY_PREFIX_START = 'sk_';

/** `text` as a LIKE pattern that matches it literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

export interface AccountSearch {
  query?: string;
  limit: number;
  /** Exclusive: accounts listed after this one (newest first). */
  afterId?: string;
}

/**
 * Finds accounts for the operators: by a part of the name (the trigram index), by id, or by the
 * start of a key's display prefix, newest first in keyset pages over `(created_at, id)`.
 */
@Injectable()
export class AccountDirectoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `limit` accounts of the search, with one more when a next page exists. */
  search({ query, limit, afterId }: AccountSearch): Promise<Account[]> {
    const accounts = this.dataSource.getRepository(Account).createQueryBuilder('a');
    if (query !== undefined) {
      const matches = [`a.name ILIKE :namePart ESCAPE '\\'`];
      if (isUUID(query)) matches.push('a.id = :id');
      if (query.startsWith(KEY_PREFIX_START)) {
        // The keys' accounts read first, as an array the primary key can look up beside the name's index.
        matches.push(
          `a.id = ANY (ARRAY(SELECT k.account_id FROM api_keys k WHERE k.prefix LIKE :keyStart ESCAPE '\\'))`,
        );
      }
      accounts.where(`(${matches.join(' OR ')})`, {
        namePart: `%${likeLiteral(query)}%`,
        id: query.toLowerCase(),
        keyStart: `${likeLiteral(query)}%`,
      });
    }
    if (afterId !== undefined) {
      accounts.andWhere('(a.created_at, a.id) < (SELECT p.created_at, p.id FROM accounts p WHERE p.id = :afterId)', {
        afterId,
      });
    }
    return accounts
      .orderBy('a.created_at', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .limit(limit + 1)
      .getMany();
  }

  /** How many keys each account holds that are not revoked; accounts without one are left out. */
  async activeKeyCounts(accountIds: string[]): Promise<Map<string, number>> {
    if (accountIds.length === 0) return new Map();
    const rows: Array<{ account_id: string; keys: number }> = await this.dataSource.query(
      `SELECT account_id, count(*)::int AS keys FROM api_keys
        WHERE account_id = ANY($1::uuid[]) AND revoked_at IS NULL
        GROUP BY account_id`,
      [accountIds],
    );
    return new Map(rows.map((row) => [row.account_id, row.keys]));
  }
}
