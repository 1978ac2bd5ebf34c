import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import {
  inspectTypedSource,
  SourceImageError,
  SourceImageProblem,
  type TypedSourceImage,
} from '../../core/image/source-image';
import { UploadMetrics, type UploadOutcome } from '../../core/metrics/upload.metrics';
import { ResultStorage } from '../../core/storage/result-storage';
import { newUploadId } from '../../core/uploads/upload-url';
import type { AuthContext } from '../auth/auth-context';
import { KeyEnvironment } from '../auth/api-key.entity';
import { rateLimitExceeded } from '../rate-limit/rate-limit.headers';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { RateLimitKind, type RateLimitDecision } from '../rate-limit/rate-limit.types';
import { Upload, UploadStatus } from './upload.entity';
import {
  declaredUploadType,
  matchesDeclaredType,
  UPLOAD_MEDIA_TYPE_LIST,
  uploadStorageKey,
  type UploadMediaType,
} from './upload-media-type';
import { PENDING_UPLOAD_LEASE_SECONDS, UploadsRepository } from './uploads.repository';

export interface UploadCommand {
  caller: AuthContext;
  clientIp: string;
  /** The request's Content-Type header, as sent. */
  contentType: string | undefined;
  /** Reads the request body, refusing more than `maxBytes` with a 413 DomainError. */
  readBody: (maxBytes: number) => Promise<Buffer>;
  /** Called as soon as the rate limit has decided, so even refusals carry RateLimit-* headers. */
  onRateLimit?: (decision: RateLimitDecision) => void;
  /** The request's validated `Idempotency-Key`, when it sent one. */
  idempotencyKey?: string;
}

/** What an upload request came to: the upload, and whether it repeats an earlier request with its key. */
export interface UploadAnswer {
  upload: Upload;
  replayed: boolean;
}

/** How long a request waits for a concurrent one with its Idempotency-Key to store the file. */
const CONCURRENT_WAIT_MS = 15_000;
const CONCURRENT_POLL_MS = 50;

/** What an Idempotency-Key binds: the declared type and the bytes. */
const requestHashOf = (declared: UploadMediaType, bytes: Buffer): string =>
  createHash('sha256').update(declared).update('\n').update(bytes).digest('hex');

/** A refused upload: the client's error, and the outcome the metrics count it under. */
class UploadRefusal extends DomainError {
  constructor(
    readonly outcome: UploadOutcome,
    error: DomainError,
  ) {
    super(error.code, error.message, error.details, error.retryAfterSeconds);
  }
}

const invalidBody = (outcome: UploadOutcome, message: string) =>
  new UploadRefusal(outcome, DomainError.invalid([{ path: 'body', message }], message));

function describeBytes(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return mebibytes >= 1 ? `${Number(mebibytes.toFixed(1))} MiB` : `${bytes} bytes`;
}

/**
 * Uploads of source images. In order, each refusal storing nothing: the upload rate limit
 * (429; every attempt counts, refused ones and replays too, since each costs the API a body);
 * the declared Content-Type (415, before the body is read); the body's size (413 past
 * SOURCE_MAX_BYTES, the limit of fetched sources, refused from its Content-Length before any of
 * it is read) and emptiness (400); what its header says it is (400 when it is no image the
 * service reads or not the declared type, 413 past SOURCE_MAX_MEGAPIXELS); then, with an
 * Idempotency-Key, the replay of the key's upload or a 409 when it was made from another body.
 * Then the row is written pending, the file stored, and the row turned stored.
 */
@Injectable()
export class UploadsService {
  private readonly logger = new Logger(UploadsService.name);
  private readonly maxBytes: number;
  private readonly maxPixels: number;
  private readonly retentionMs: number;

  constructor(
    @Inject(APP_CONFIG)
    config: Pick<AppConfig, 'SOURCE_MAX_BYTES' | 'SOURCE_MAX_MEGAPIXELS' | 'UPLOAD_RETENTION_HOURS'>,
    private readonly rateLimits: RateLimitService,
    private readonly uploads: UploadsRepository,
    private readonly storage: ResultStorage,
    private readonly metrics: UploadMetrics,
  ) {
    this.maxBytes = config.SOURCE_MAX_BYTES;
    this.maxPixels = config.SOURCE_MAX_MEGAPIXELS * 1_000_000;
    this.retentionMs = config.UPLOAD_RETENTION_HOURS * 3600 * 1000;
  }

  async create(command: UploadCommand): Promise<UploadAnswer> {
    const environment = command.caller.environment;
    try {
      const answer = await this.admit(command);
      this.metrics.uploaded(answer.replayed ? 'replayed' : 'stored', environment, answer.upload.sizeBytes);
      return answer;
    } catch (error) {
      this.metrics.uploaded(error instanceof UploadRefusal ? error.outcome : 'failed', environment);
      throw error;
    }
  }

  private async admit({
    caller,
    clientIp,
    contentType,
    readBody,
    onRateLimit,
    idempotencyKey,
  }: UploadCommand): Promise<UploadAnswer> {
    const subject = { keyId: caller.keyId, accountId: caller.accountId, ip: clientIp };
    const decision = await this.rateLimits.consume(RateLimitKind.Upload, subject);
    onRateLimit?.(decision);
    if (!decision.allowed) {
      throw new UploadRefusal(
        'rate_limited',
        rateLimitExceeded(RateLimitKind.Upload, decision, this.rateLimits.windowSeconds),
      );
    }

    const declared = declaredUploadType(contentType);
    if (!declared) {
      throw new UploadRefusal(
        'unsupported_type',
        new DomainError(
          ErrorCode.UnsupportedMediaType,
          `Content-Type must name the image's type: one of ${UPLOAD_MEDIA_TYPE_LIST.join(', ')}.`,
          { accepted: UPLOAD_MEDIA_TYPE_LIST },
        ),
      );
    }

    const bytes = await this.readWithinLimit(readBody);
    if (bytes.length === 0) throw invalidBody('empty', "The body is empty: send the image's bytes as the body.");
    const image = await this.inspect(bytes);
    const actual = image.mediaType;
    if (!matchesDeclaredType(declared, actual)) {
      throw invalidBody('type_mismatch', `The body is ${actual}, but Content-Type says ${declared}.`);
    }
    const upload = this.newUpload(caller, image, actual);
    if (idempotencyKey === undefined) {
      await this.uploads.insert(upload);
      await this.storeFile(upload, image.bytes);
      return { upload, replayed: false };
    }
    upload.idempotencyKey = idempotencyKey;
    upload.requestHash = requestHashOf(declared, image.bytes);
    return this.storeOnce(upload, image.bytes);
  }

  private newUpload(caller: AuthContext, image: TypedSourceImage, mediaType: UploadMediaType): Upload {
    const id = newUploadId();
    const createdAt = new Date();
    return Object.assign(new Upload(), {
      id,
      accountId: caller.accountId,
      apiKeyId: caller.keyId,
      sandbox: caller.environment === KeyEnvironment.Sandbox,
      storageKey: uploadStorageKey(caller.accountId, id, mediaType),
      contentType: mediaType,
      width: image.width,
      height: image.height,
      sizeBytes: image.bytes.length,
      status: UploadStatus.Pending,
      idempotencyKey: null,
      requestHash: null,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + this.retentionMs),
    } satisfies Upload);
  }

  /**
   * The upload of an Idempotency-Key, made once. The pending row claims the key (of requests at
   * once, the unique index lets one insert); the others read the key's row: another body is a
   * conflict, a stored upload is replayed, a pending one is waited for. A pending row past its
   * lease was abandoned and is cleared, file first, so the key can be claimed again; an expired
   * upload no longer holds its key.
   */
  private async storeOnce(upload: Upload, bytes: Buffer): Promise<UploadAnswer> {
    const deadline = Date.now() + CONCURRENT_WAIT_MS;
    for (;;) {
      if (await this.uploads.claim(upload)) {
        await this.storeFile(upload, bytes);
        return { upload, replayed: false };
      }
      const held = await this.uploads.findByKey(upload.apiKeyId, upload.idempotencyKey as string);
      if (!held) continue;
      if (held.expired) {
        await this.uploads.releaseExpiredKey(held.upload.id);
        continue;
      }
      if (held.upload.requestHash !== upload.requestHash) {
        throw new UploadRefusal(
          'idempotency_conflict',
          new DomainError(
            ErrorCode.IdempotencyConflict,
            'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
          ),
        );
      }
      if (held.upload.status === UploadStatus.Stored) return { upload: held.upload, replayed: true };
      if (held.abandoned) {
        await this.discard(held.upload);
        continue;
      }
      if (Date.now() >= deadline) {
        throw new UploadRefusal(
          'idempotency_conflict',
          new DomainError(
            ErrorCode.IdempotencyConflict,
            'A request with this Idempotency-Key is still storing its upload. Retry it after Retry-After.',
            undefined,
            PENDING_UPLOAD_LEASE_SECONDS,
          ),
        );
      }
      await sleep(CONCURRENT_POLL_MS);
    }
  }

  /**
   * The file, then the row turned stored: the row was written pending first, so whatever fails
   * or dies between the two leaves a row no reader takes for a source, and every file stored
   * has a row naming it, which a failed request or the retention sweep deletes with its file.
   */
  private async storeFile(upload: Upload, bytes: Buffer): Promise<void> {
    try {
      await this.storage.put(upload.storageKey, bytes, upload.contentType);
      if (!(await this.uploads.markStored(upload.id))) throw new Error('the pending upload was cleared as abandoned');
    } catch (error) {
      await this.discard(upload).catch((cleanup: unknown) => {
        this.logger.warn(
          { err: cleanup, upload_id: upload.id },
          'could not clear an upload whose file failed; the retention sweep will',
        );
      });
      throw error;
    }
    upload.status = UploadStatus.Stored;
  }

  /** Deletes a pending upload: its file (if any was stored), then its row. */
  private async discard(upload: Upload): Promise<void> {
    await this.storage.delete(upload.storageKey);
    await this.uploads.deletePending(upload.id);
  }

  private async readWithinLimit(readBody: UploadCommand['readBody']): Promise<Buffer> {
    try {
      return await readBody(this.maxBytes);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code !== ErrorCode.PayloadTooLarge) throw new UploadRefusal('unreadable', error);
      throw new UploadRefusal(
        'too_large',
        new DomainError(
          ErrorCode.PayloadTooLarge,
          `Uploads are limited to ${describeBytes(this.maxBytes)} (${this.maxBytes} bytes), as fetched sources are.`,
          { max_bytes: this.maxBytes },
        ),
      );
    }
  }

  /** What the bytes are, read from their header alone. */
  private async inspect(bytes: Buffer): Promise<TypedSourceImage> {
    try {
      return await inspectTypedSource(bytes, this.maxPixels);
    } catch (error) {
      if (!(error instanceof SourceImageError)) throw error;
      if (error.problem === SourceImageProblem.TooLarge) {
        throw new UploadRefusal(
          'too_large',
          new DomainError(ErrorCode.PayloadTooLarge, error.message.replace('The source', 'The image'), {
            max_megapixels: this.maxPixels / 1_000_000,
          }),
        );
      }
      throw invalidBody('not_image', error.message.replace('The source', 'The body'));
    }
  }
}
