import { Injectable } from '@nestjs/common';
import { ResultStorage } from '../../core/storage/result-storage';
import { UploadedSources } from '../../core/uploads/uploaded-sources';
import { UploadsRepository } from './uploads.repository';

/** The worker's reader of uploaded sources: the row decides who may read, result storage holds the bytes. */
@Injectable()
export class StoredUploadSources extends UploadedSources {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly storage: ResultStorage,
  ) {
    super();
  }

  async read(uploadId: string, accountId: string): Promise<Buffer | null> {
    const key = await this.uploads.readableKey(uploadId, accountId);
    if (!key) return null;
    const file = await this.storage.open(key);
    if (!file) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    return Buffer.concat(chunks);
  }
}
