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
import { Upload } from './upload.entity';
import {
  declaredUploadType,
  matchesDeclaredType,
  UPLOAD_MEDIA_TYPE_LIST,
  uploadStorageKey,
  type UploadMediaType,
} from './upload-media-type';
import { UploadsRepository } from './uploads.repository';

export interface UploadCommand {
  caller: AuthContext;
  clientIp: string;
  /** The request's Content-Type header, as sent. */
  contentType: string | undefined;
  /** Reads the request body, refusing more than `maxBytes` with a 413 DomainError. */
  readBody: (maxBytes: number) => Promise<Buffer>;
  /** Called as soon as the rate limit has decided, so even refusals carry RateLimit-* headers. */
  onRateLimit?: (decision: RateLimitDecision) => void;
}

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
 * (429; every attempt counts, refused ones too, since each costs the API a body); the declared
 * Content-Type (415, before the body is read); the body's size (413 past SOURCE_MAX_BYTES, the
 * limit of fetched sources) and emptiness (400); what its header says it is (400 when it is no
 * image the service reads or not the declared type, 413 past SOURCE_MAX_MEGAPIXELS). Then the
 * row is written and the file stored.
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

  async create(command: UploadCommand): Promise<Upload> {
    const environment = command.caller.environment;
    try {
      const upload = await this.admit(command);
      this.metrics.uploaded('stored', environment, upload.sizeBytes);
      return upload;
    } catch (error) {
      this.metrics.uploaded(error instanceof UploadRefusal ? error.outcome : 'failed', environment);
      throw error;
    }
  }

  private async admit({ caller, clientIp, contentType, readBody, onRateLimit }: UploadCommand): Promise<Upload> {
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
    if (!matchesDeclaredType(declared, image.mediaType)) {
      throw invalidBody('type_mismatch', `The body is ${image.mediaType}, but Content-Type says ${declared}.`);
    }
    return this.store(caller, { ...image, mediaType: image.mediaType });
  }

  /**
   * The row first, then the file: a crash between the two leaves a row without a file, which
   * reads as a missing source and which the retention sweep deletes at expiry, never a file
   * that no row names (which nothing would ever delete).
   */
  private async store(caller: AuthContext, image: TypedSourceImage & { mediaType: UploadMediaType }): Promise<Upload> {
    const id = newUploadId();
    const createdAt = new Date();
    const upload = Object.assign(new Upload(), {
      id,
      accountId: caller.accountId,
      apiKeyId: caller.keyId,
      sandbox: caller.environment === KeyEnvironment.Sandbox,
      storageKey: uploadStorageKey(caller.accountId, id, image.mediaType),
      contentType: image.mediaType,
      width: image.width,
      height: image.height,
      sizeBytes: image.bytes.length,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + this.retentionMs),
    } satisfies Upload);
    await this.uploads.insert(upload);
    try {
      await this.storage.put(upload.storageKey, image.bytes, upload.contentType);
    } catch (error) {
      await this.uploads.delete(id).catch((cleanup: unknown) => {
        this.logger.warn({ err: cleanup, upload_id: id }, 'could not delete the row of an upload whose file failed');
      });
      throw error;
    }
    return upload;
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
