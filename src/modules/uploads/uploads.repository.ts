import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import { Upload } from './upload.entity';

/** An expired upload the sweep is deleting. */
export interface ExpiredUpload {
  id: string;
  storageKey: string;
}

/** The statements over `uploads`; every read of an upload for a client takes its account. */
@Injectable()
export class UploadsRepository {
  constructor(
    @InjectRepository(Upload) private readonly uploads: Repository<Upload>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async insert(upload: Upload): Promise<void> {
    await this.uploads.insert(upload);
  }

  async delete(uploadId: string): Promise<void> {
    await this.uploads.delete({ id: uploadId });
  }

  /** The storage key of `accountId`'s upload `uploadId` while it has not expired; null otherwise. */
  async readableKey(uploadId: string, accountId: string): Promise<string | null> {
    const [row]: Array<{ storage_key: string }> = await this.dataSource.query(
      `SELECT storage_key FROM uploads WHERE id = $1 AND account_id = $2 AND expires_at > now()`,
      [uploadId, accountId],
    );
    return row?.storage_key ?? null;
  }

  /**
   * Up to `limit` of the oldest expired uploads, locked for the rest of `remove`'s transaction
   * and skipped by any other sweep running at the same time. `remove` deletes their files and
   * returns the ids whose files are gone; only those rows are deleted, so a file whose deletion
   * failed keeps its row and is tried again by a later sweep.
   */
  async deleteExpired(limit: number, remove: (due: ExpiredUpload[]) => Promise<string[]>): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const due: Array<{ id: string; storage_key: string }> = await manager.query(
        `SELECT id, storage_key FROM uploads WHERE expires_at <= now()
          ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (due.length === 0) return 0;
      const removed = await remove(due.map((row) => ({ id: row.id, storageKey: row.storage_key })));
      if (removed.length === 0) return 0;
      await manager.query(`DELETE FROM uploads WHERE id = ANY($1::text[])`, [removed]);
      return removed.length;
    });
  }
}
