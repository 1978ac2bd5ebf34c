import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/core/storage/s3.storage';
import { freePort } from './processes';

/** s3rver accepts any request signed with this pair. */
const S3RVER_CREDENTIAL = 'S3RVER';

export interface LoopbackS3 {
  endpoint: string;
  bucket: string;
  /** The driver's settings for this server, as configuration holds them. */
  settings: S3Settings;
  /** The same settings as environment variables, for a child process. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * An S3-compatible server (s3rver) on 127.0.0.1 at a free port, keeping its objects in a fresh
 * temporary folder, with one empty bucket. It checks request signatures and presigned expiries
 * as S3 does.
 */
export async function startLoopbackS3(bucket = 'imgjobs-results'): Promise<LoopbackS3> {
  const directory = await mkdtemp(join(tmpdir(), 'imgjobs-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: await freePort(),
    directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const settings: S3Settings = {
    S3_BUCKET: bucket,
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: S3RVER_CREDENTIAL,
    S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIAL,
    S3_FORCE_PATH_STYLE: true,
  };
  return {
    endpoint,
    bucket,
    settings,
    env: {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIAL,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIAL,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
