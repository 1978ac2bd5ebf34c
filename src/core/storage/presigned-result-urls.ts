import type { AppConfig } from '../config/config.schema';
import { ResultUrls } from './result-urls';
import type { S3Storage } from './s3.storage';

/** `RESULT_URLS=presigned`: presigned S3 GET URLs, so clients download from the bucket and not through the API. */
export class PresignedResultUrls extends ResultUrls {
  private readonly ttlSeconds: number;

  constructor(
    private readonly storage: S3Storage,
    config: Pick<AppConfig, 'RESULT_URL_TTL_SECONDS'>,
  ) {
    super();
    // At most 7 days, which the configuration checks: Signature V4 refuses a longer expiry.
    this.ttlSeconds = config.RESULT_URL_TTL_SECONDS;
  }

  urlOf(key: string, now: Date = new Date()): Promise<string> {
    return this.storage.presignedUrl(key, this.ttlSeconds, now);
  }
}
