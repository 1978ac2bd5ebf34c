import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { UploadMediaType } from './upload-media-type';

/**
 * Where an upload is: `pending` from its row's insert until its file is stored, and unreadable
 * as a source meanwhile; `stored` once the file is in storage. A pending row older than
 * PENDING_UPLOAD_LEASE_SECONDS was abandoned (its request failed or its process died) and is
 * deleted, with any file it names, by the next request with its key or by the retention sweep.
 */
export enum UploadStatus {
  Pending = 'pending',
  Stored = 'stored',
}

/** An uploaded source image: its file lives in result storage under `storageKey` until `expiresAt`. */
@Entity({ name: 'uploads' })
export class Upload {
  /** `upl_<24 base62>`; clients name it as `upload://<id>`. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  /** The key that uploaded it, for the operator; any key of the account may use it. */
  @Column({ name: 'api_key_id', type: 'uuid' })
  apiKeyId!: string;

  @Column({ type: 'boolean' })
  sandbox!: boolean;

  @Column({ name: 'storage_key', type: 'text' })
  storageKey!: string;

  /** What the bytes are, read from their header (and equal to the declared Content-Type). */
  @Column({ name: 'content_type', type: 'text' })
  contentType!: UploadMediaType;

  /** As a viewer shows it: EXIF orientation applied. */
  @Column({ type: 'integer' })
  width!: number;

  @Column({ type: 'integer' })
  height!: number;

  @Column({ name: 'size_bytes', type: 'integer' })
  sizeBytes!: number;

  @Column({ type: 'text' })
  status!: UploadStatus;

  /** The `Idempotency-Key` it was made with, if any: one upload per key and API key while it lives. */
  @Column({ name: 'idempotency_key', type: 'text', nullable: true })
  idempotencyKey!: string | null;

  /** The hash of the request that made it (declared type and bytes), set with `idempotencyKey`. */
  @Column({ name: 'request_hash', type: 'text', nullable: true })
  requestHash!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
