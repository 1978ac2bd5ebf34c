import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { assertValidStorageKey, ResultStorage, type StoredFile } from './result-storage';
import { assertContentTypeOfKey, contentTypeOfKey } from './stored-content-type';

export type S3Settings = Pick<
  AppConfig,
  'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'
>;

/**
 * Files at least this large go up as a multipart upload, in parts of this size (S3's minimum
 * part is 5 MiB); smaller ones in one PUT. Either way the object appears only once complete.
 */
const MULTIPART_PART_BYTES = 8 * 1024 * 1024;
/** Parts of one file uploaded at once. */
const MULTIPART_CONCURRENCY = 4;

/**
 * Objects in an S3-compatible bucket, one per key. A PUT, or the completion of a multipart
 * upload, makes an object visible whole, so a reader sees the old object or the new one,
 * never a part; a failed multipart upload is aborted rather than left to be billed.
 *
 * Atomicity stops at one object: S3 cannot replace an image and its thumbnail together. A
 * result never needs it, because every run of a result writes a pair of keys of its own
 * (`resultFileKeys`: `results/<job>/<result>/<run>.png` and `<run>.thumb.webp`) and never
 * overwrites another run's. The pair becomes visible to readers only when the run that won
 * the conditional `completed` update stores both keys in the result row, in one statement; a
 * retried or duplicate run that lost deletes its own pair. A reader takes both keys from one
 * row, so it gets the image and the thumbnail of the same run, whichever run that was.
 */
@Injectable()
export class S3Storage extends ResultStorage implements OnModuleDestroy {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(@Inject(APP_CONFIG) config: S3Settings) {
    super();
    if (!config.S3_BUCKET) throw new Error('S3_BUCKET must be set to store results in S3');
    this.bucket = config.S3_BUCKET;
    this.client = new S3Client({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      credentials:
        config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
          : undefined,
      // Checksums only where S3 requires them: many S3-compatible servers refuse the chunked
      // trailing checksums the SDK otherwise adds to every upload and expects on every download.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, data: Buffer, contentType: string, signal?: AbortSignal): Promise<void> {
    assertValidStorageKey(key);
    assertContentTypeOfKey(key, contentType);
    signal?.throwIfAborted();
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: data, ContentType: contentTypeOfKey(key) },
      partSize: MULTIPART_PART_BYTES,
      queueSize: MULTIPART_CONCURRENCY,
    });
    // One PUT is not cut short: the SDK would stop waiting for it but still send it, and S3 shows
    // it whole or not at all. It finishes, and a caller that no longer wants it deletes it.
    const stoppable = signal && data.length >= MULTIPART_PART_BYTES ? signal : undefined;
    const abort = () => void upload.abort();
    stoppable?.addEventListener('abort', abort, { once: true });
    try {
      await upload.done();
    } catch (error) {
      if (stoppable?.aborted) await this.abandonParts(key, upload.uploadId);
      throw error;
    } finally {
      stoppable?.removeEventListener('abort', abort);
    }
  }

  /**
   * Aborts the multipart upload an aborted put had begun. The upload aborts it too, but in the
   * background after `done` has rejected: a process about to exit would leave its parts stored
   * (and billed) without this. Already aborted, S3 answers NoSuchUpload: the same end.
   */
  private async abandonParts(key: string, uploadId: string | undefined): Promise<void> {
    if (!uploadId) return;
    await this.client
      .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }))
      .catch(() => undefined);
  }

  async open(key: string): Promise<StoredFile | null> {
    assertValidStorageKey(key);
    const contentType = contentTypeOfKey(key);
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!(object.Body instanceof Readable) || object.ContentLength === undefined) {
        throw new Error(`S3 answered GetObject for ${key} without a body stream or a length`);
      }
      return { stream: object.Body, contentType, size: object.ContentLength };
    } catch (error) {
      if (error instanceof NoSuchKey) return null;
      throw error;
    }
  }

  /** S3 answers a DELETE of a missing object with success, as the interface wants. */
  async delete(key: string): Promise<void> {
    assertValidStorageKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /**
   * A URL that downloads `key` straight from the bucket, signed at `signedAt` and valid for `expiresInSeconds` after.
   */
  async presignedUrl(key: string, expiresInSeconds: number, signedAt: Date): Promise<string> {
    assertValidStorageKey(key);
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: key });
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds, signingDate: signedAt });
  }

  onModuleDestroy(): void {
    this.client.destroy();
  }
}
