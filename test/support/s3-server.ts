import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
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
  replaceObjectsWhole(server);
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

/** The part of s3rver's filesystem store that writes objects (its typings do not show it). */
interface ObjectStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: S3ObjectToStore): Promise<{ size: number; md5: string }>;
}

interface S3ObjectToStore {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: Record<string, string>;
}

/**
 * S3 replaces an object whole, and the storage contract counts on it (concurrent writers of one
 * key leave one writer's file). s3rver writes an object in place and answers before its bytes are
 * on disk, so two writers can leave a mixture: here each write goes to a file of its own, renamed
 * over the object once complete, before the answer.
 */
function replaceObjectsWhole(server: S3rver): void {
  const store = (server as unknown as { store: ObjectStore }).store;
  store.putObject = async (object) => {
    const content = Buffer.isBuffer(object.content) ? object.content : await bytesOf(object.content);
    const md5 = createHash('md5').update(content).digest('hex');
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    const partial = `${objectPath}.${randomBytes(6).toString('hex')}.partial`;
    await writeFile(partial, content);
    await rename(partial, objectPath);
    await store.putMetadata(object.bucket, object.key, object.metadata, md5);
    return { size: content.length, md5 };
  };
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
