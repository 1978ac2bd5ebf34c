import { Injectable } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';
import { ResultStorage, type StoredFile } from './result-storage';
import { ResultUrlSigner } from './result-url.signer';

export interface SignedFile extends StoredFile {
  /** How long a client may cache the file: until its URL expires. */
  maxAgeSeconds: number;
}

/** Serves stored files to holders of a signed URL, and nobody else. */
@Injectable()
export class ResultFilesService {
  constructor(
    private readonly signer: ResultUrlSigner,
    private readonly storage: ResultStorage,
  ) {}

  /**
   * The file behind a signed URL. A bad, expired or missing signature and a missing file all
   * answer the same `not_found`, so a caller cannot tell which keys exist.
   */
  async openSigned(key: string, expires: string, signature: string, now: Date = new Date()): Promise<SignedFile> {
    if (!this.signer.verify(key, expires, signature, now)) throw DomainError.notFound('file');
    const file = await this.storage.open(key);
    if (!file) throw DomainError.notFound('file');
    return { ...file, maxAgeSeconds: this.signer.secondsUntilExpiry(expires, now) };
  }
}
