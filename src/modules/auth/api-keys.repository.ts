import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, IsNull } from 'typeorm';
import { ApiKey, type KeyEnvironment } from './api-key.entity';

export interface NewApiKey {
  accountId: string;
  environment: KeyEnvironment;
  name: string | null;
  prefix: string;
  secretHash: string;
}

/** Every statement on the API keys table. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(key: NewApiKey): Promise<ApiKey> {
    const keys = this.dataSource.getRepository(ApiKey);
    return keys.save(keys.create(key));
  }

  /** Stamps the key revoked unless it already was: false when it does not exist or was revoked before. */
  async revoke(keyId: string): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(ApiKey)
      .update({ id: keyId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /** The unrevoked key with this secret hash, with its account. */
  findActiveByHash(secretHash: string): Promise<ApiKey | null> {
    return this.dataSource.getRepository(ApiKey).findOne({
      where: { secretHash, revokedAt: IsNull() },
      relations: { account: true },
    });
  }

  /** The unrevoked keys among `keyIds`, with their accounts. */
  findActiveByIds(keyIds: readonly string[]): Promise<ApiKey[]> {
    if (keyIds.length === 0) return Promise.resolve([]);
    return this.dataSource.getRepository(ApiKey).find({
      where: { id: In([...keyIds]), revokedAt: IsNull() },
      relations: { account: true },
    });
  }

  findById(keyId: string): Promise<ApiKey | null> {
    return this.dataSource.getRepository(ApiKey).findOneBy({ id: keyId });
  }
}
