import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Every statement on the accounts' signing secrets, in the caller's transaction. */
@Injectable()
export class WebhookSecretsRepository {
  /** The account's current secret (the one with no expiry), if it has one. */
  async findCurrent(manager: EntityManager, accountId: string): Promise<string | null> {
    const [row]: Array<{ secret: string }> = await manager.query(
      `SELECT secret FROM webhook_secrets WHERE account_id = $1 AND expires_at IS NULL`,
      [accountId],
    );
    return row?.secret ?? null;
  }

  /** The current secret keeps signing for `overlapSeconds` more, then expires. */
  async expireCurrent(manager: EntityManager, accountId: string, overlapSeconds: number): Promise<void> {
    await manager.query(
      `UPDATE webhook_secrets SET expires_at = now() + make_interval(secs => $2)
        WHERE account_id = $1 AND expires_at IS NULL`,
      [accountId, overlapSeconds],
    );
  }

  async insertCurrent(manager: EntityManager, accountId: string, secret: string): Promise<void> {
    await manager.query(`INSERT INTO webhook_secrets (id, account_id, secret) VALUES ($1, $2, $3)`, [
      randomUUID(),
      accountId,
      secret,
    ]);
  }
}
