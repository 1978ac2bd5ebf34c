import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { metricsOf } from './registered-metrics';

/**
 * What one `POST /uploads` came to: `stored`; `replayed` (an Idempotency-Key's repeat, answered
 * with the upload its first request stored); the reason it was refused (`rate_limited`,
 * `unsupported_type`, `too_large`, `unreadable`, `empty`, `not_image`, `type_mismatch`,
 * `idempotency_conflict`); or `failed`, a fault of the service (storage or database) answered
 * with a 5xx.
 */
export type UploadOutcome =
  | 'stored'
  | 'replayed'
  | 'rate_limited'
  | 'unsupported_type'
  | 'too_large'
  | 'unreadable'
  | 'empty'
  | 'not_image'
  | 'type_mismatch'
  | 'idempotency_conflict'
  | 'failed';

/** Uploads by outcome, the bytes stored, and uploads the retention sweep deleted. */
@Injectable()
export class UploadMetrics {
  private readonly uploads: Counter<'outcome' | 'environment'>;
  private readonly storedBytes: Counter<'environment'>;
  private readonly expired: Counter;

  constructor(registry: Registry) {
    const metric = metricsOf(registry);
    this.uploads = metric.counter({
      name: 'imgjobs_uploads_total',
      help: 'POST /uploads requests by outcome (stored, or why it was refused) and key environment.',
      labelNames: ['outcome', 'environment'],
    });
    this.storedBytes = metric.counter({
      name: 'imgjobs_upload_bytes_total',
      help: 'Bytes of uploaded source images stored, by key environment.',
      labelNames: ['environment'],
    });
    this.expired = metric.counter({
      name: 'imgjobs_uploads_expired_total',
      help: 'Uploads the retention sweep deleted (file and row) after they expired.',
    });
  }

  uploaded(outcome: UploadOutcome, environment: string, bytes = 0): void {
    this.uploads.inc({ outcome, environment });
    if (outcome === 'stored') this.storedBytes.inc({ environment }, bytes);
  }

  expiredDeleted(count: number): void {
    this.expired.inc(count);
  }
}
