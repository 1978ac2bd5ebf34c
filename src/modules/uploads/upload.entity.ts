import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { UploadMediaType } from './upload-media-type';

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

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
