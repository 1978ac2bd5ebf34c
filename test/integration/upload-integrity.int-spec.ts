import { connect, type Socket } from 'node:net';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { ResultStorage } from '../../src/core/storage/result-storage';
import { UploadedSources } from '../../src/core/uploads/uploaded-sources';
import { UploadRetentionSweeperService } from '../../src/modules/uploads/upload-retention-sweeper.service';
import { UploadsModule } from '../../src/modules/uploads/uploads.module';
import { PENDING_UPLOAD_LEASE_SECONDS, UploadsRepository } from '../../src/modules/uploads/uploads.repository';
import { expectError } from '../support/http-errors';
import { idempotencyKey, waitForJob } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { freePort } from '../support/processes';
import { readUntil } from '../support/waiting';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

const MAX_BYTES = 120_000;

const png = (width: number, height: number, background = '#3366cc') =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

interface RawExchange {
  /** What the client received before the connection closed. */
  answer: string;
  /** The client's port: the server's name for the connection. */
  localPort: number;
}

/**
 * Sends the head of an upload over a raw socket, then `firstBody` only, never ending its side,
 * and waits for the answer and for the server to close the connection. A server that read the
 * body before answering would wait for bytes that never come, and the exchange would time out.
 */
function rawUpload(port: number, head: string[], firstBody: Buffer, timeoutMs = 10_000): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close within ${timeoutMs} ms: ${Buffer.concat(received).toString()}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined);
    let localPort = 0;
    socket.on('connect', () => (localPort = socket.localPort as number));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer: Buffer.concat(received).toString('latin1'), localPort });
    });
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    socket.write(firstBody);
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const headerOf = (answer: string, name: string) =>
  new RegExp(`^${name}: *(.*)$`, 'im').exec(answer.split('\r\n\r\n')[0])?.[1]?.trim();
const jsonOf = (answer: string) => {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  // A chunked answer: the JSON sits between the first chunk size and the terminating chunk.
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  return JSON.parse(body.slice(start, end + 1)) as { error: { code: string; details: unknown } };
};

describe('uploads: the body limit, the row and its file, and Idempotency-Key', () => {
  let t: TestApp;
  let port: number;
  let owner: SeededAccount;
  /** Bytes the server read from each connection, by remote port, once it closed. */
  const bytesReadByConnection = new Map<number, number>();

  beforeAll(async () => {
    port = await freePort();
    t = await createTestApp(
      {
        ...GENEROUS_LIMITS,
        SOURCE_MAX_BYTES: String(MAX_BYTES),
        SOURCE_MAX_MEGAPIXELS: '2',
        LIMIT_UPLOADS_PER_HOUR_KEY: '1000',
        LIMIT_UPLOADS_PER_HOUR_ACCOUNT: '1000',
        LIMIT_UPLOADS_PER_HOUR_IP: '1000',
        SWEEP_INTERVAL_SECONDS: '3600',
      },
      { role: ProcessRole.All },
    );
    await t.app.listen(port, '127.0.0.1');
    t.app.getHttpServer().on('connection', (socket: Socket) => {
      const remotePort = socket.remotePort as number;
      socket.on('close', () => bytesReadByConnection.set(remotePort, socket.bytesRead));
    });
    owner = await seedAccount(t, { credits: 50 });
  });
  afterAll(() => t?.close());
  afterEach(() => jest.restoreAllMocks());

  const upload = (key: string, body: Buffer, idempotency?: string) => {
    const req = t.http().post('/api/v1/uploads').set(bearer(key)).set('Content-Type', 'image/png');
    if (idempotency !== undefined) req.set('Idempotency-Key', idempotency);
    return req.send(body);
  };

  const rowsOf = async (accountId: string): Promise<Array<{ id: string; status: string; storage_key: string }>> =>
    t.dataSource.query(`SELECT id, status, storage_key FROM uploads WHERE account_id = $1 ORDER BY created_at`, [
      accountId,
    ]);

  const storedFiles = async (accountId: string): Promise<string[]> =>
    readdir(join(t.config.STORAGE_DIR, 'uploads', accountId)).catch(() => []);

  describe('a body over SOURCE_MAX_BYTES', () => {
    const head = (account: SeededAccount, length: string[]) => [
      'POST /api/v1/uploads HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${account.liveKey}`,
      'Content-Type: image/png',
      ...length,
    ];

    it('is refused 413 from its Content-Length before it is read, and the connection is closed', async () => {
      const account = await seedAccount(t, {});
      const declared = 200 * 1024 * 1024;
      const exchange = await rawUpload(port, head(account, [`Content-Length: ${declared}`]), Buffer.alloc(1000, 7));
      expect(statusOf(exchange.answer)).toBe(413);
      expect(headerOf(exchange.answer, 'Connection')).toBe('close');
      expect(jsonOf(exchange.answer).error).toMatchObject({
        code: 'payload_too_large',
        details: { max_bytes: MAX_BYTES },
      });
      // The answer came, and the connection closed, with 1000 bytes of 200 MiB sent: the server
      // read the head and at most what was written, and waited for nothing more.
      const read = await readUntil(
        async () => bytesReadByConnection.get(exchange.localPort),
        (bytes) => bytes !== undefined,
        () => 'the server to close the connection',
      );
      expect(read).toBeLessThan(1000 + 1024);
      expect(await rowsOf(account.accountId)).toEqual([]);
    });

    it.each([
      ['401 without a key', [] as string[], 401, 'unauthorized'],
      ['415 with a type that is no image', ['Content-Type: text/plain'], 415, 'unsupported_media_type'],
    ])(
      'answered %s before its body, closes the connection rather than reading it',
      async (_case, extra, status, code) => {
        const account = await seedAccount(t, {});
        const lines = head(account, ['Content-Length: 50000']).filter(
          (line) =>
            !(line.startsWith('Authorization') && status === 401) && !(line.startsWith('Content-Type') && extra.length),
        );
        const exchange = await rawUpload(port, [...lines, ...extra], Buffer.alloc(1000, 7));
        expect(statusOf(exchange.answer)).toBe(status);
        expect(headerOf(exchange.answer, 'Connection')).toBe('close');
        expect(jsonOf(exchange.answer).error.code).toBe(code);
      },
    );

    it('is refused 413 as soon as a chunked body passes the limit, without reading the rest', async () => {
      const account = await seedAccount(t, {});
      const chunk = Buffer.alloc(MAX_BYTES + 1, 1);
      const body = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
      const exchange = await rawUpload(port, head(account, ['Transfer-Encoding: chunked']), body);
      expect(statusOf(exchange.answer)).toBe(413);
      expect(headerOf(exchange.answer, 'Connection')).toBe('close');
      expect(jsonOf(exchange.answer).error.code).toBe('payload_too_large');
      expect(await rowsOf(account.accountId)).toEqual([]);
    });
  });

  describe('a crash between the row and the file', () => {
    const uploadsRepository = () => t.app.select(UploadsModule).get(UploadsRepository, { strict: true });

    /**
     * A request that dies where `failAt` says (before its file is stored, or after it and before
     * its row turns stored), its cleanup dying with it: what a killed process leaves behind.
     */
    async function dieWhileStoring(account: SeededAccount, failAt: 'put' | 'markStored'): Promise<string> {
      const repository = uploadsRepository();
      const storage = t.app.get(ResultStorage);
      if (failAt === 'put') {
        jest.spyOn(storage, 'put').mockRejectedValueOnce(new Error('process killed'));
      } else {
        jest.spyOn(repository, 'markStored').mockRejectedValueOnce(new Error('process killed'));
      }
      jest.spyOn(storage, 'delete').mockRejectedValueOnce(new Error('process killed'));
      jest.spyOn(repository, 'deletePending').mockRejectedValueOnce(new Error('process killed'));
      expectError(await upload(account.liveKey, await png(64, 48)), 500, 'internal_error');
      const rows = await rowsOf(account.accountId);
      expect(rows.map((row) => row.status)).toEqual(['pending']);
      return rows[0].id;
    }

    it.each(['put', 'markStored'] as const)(
      'leaves nothing that reads as a source when it dies at %s; a job from it fails as an unknown upload does',
      async (failAt) => {
        const account = await seedAccount(t, { credits: 10 });
        const id = await dieWhileStoring(account, failAt);
        if (failAt === 'markStored') expect(await storedFiles(account.accountId)).toHaveLength(1);
        expect(await t.app.get(UploadedSources).read(id, account.accountId)).toBeNull();

        const created = await t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.liveKey))
          .set('Idempotency-Key', idempotencyKey())
          .send({
            input: [
              { image_url: `upload://${id}`, external_id: 'half-stored' },
              { image_url: 'upload://upl_000000000000000000000000', external_id: 'unknown' },
            ],
          })
          .expect(202);
        await waitForJob(t, created.body.job.id, undefined, 45_000);
        const { body } = await t
          .http()
          .get(`/api/v1/jobs/${created.body.job.id}`)
          .set(bearer(account.liveKey))
          .expect(200);
        const [halfStored, unknown] = body.results as Array<{ error_code: string; error_message: string }>;
        expect(halfStored).toMatchObject({ status: 'failed', error_code: 'source_fetch_failed', credits_used: 0 });
        expect(halfStored.error_message).toBe(unknown.error_message);

        // Past its lease the pending row is abandoned: the sweep deletes its file and then the row.
        await t.dataSource.query(`UPDATE uploads SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, [
          id,
          PENDING_UPLOAD_LEASE_SECONDS + 1,
        ]);
        await t.app.get(UploadRetentionSweeperService).sweep();
        expect(await rowsOf(account.accountId)).toEqual([]);
        expect(await storedFiles(account.accountId)).toEqual([]);
      },
      60_000,
    );

    it('a pending row past its lease gives its Idempotency-Key to the next request, which stores anew', async () => {
      const account = await seedAccount(t, {});
      const key = idempotencyKey();
      const bytes = await png(30, 30);
      jest.spyOn(t.app.get(ResultStorage), 'put').mockRejectedValueOnce(new Error('process killed'));
      jest.spyOn(uploadsRepository(), 'deletePending').mockRejectedValueOnce(new Error('process killed'));
      expectError(await upload(account.liveKey, bytes, key), 500, 'internal_error');
      const [abandoned] = await rowsOf(account.accountId);
      await t.dataSource.query(`UPDATE uploads SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, [
        abandoned.id,
        PENDING_UPLOAD_LEASE_SECONDS + 1,
      ]);
      const res = await upload(account.liveKey, bytes, key).expect(201);
      expect(res.body.upload.id).not.toBe(abandoned.id);
      expect((await rowsOf(account.accountId)).map((row) => [row.id, row.status])).toEqual([
        [res.body.upload.id, 'stored'],
      ]);
    });
  });

  describe('Idempotency-Key', () => {
    it('answers a repeat with the same upload (200), stored once', async () => {
      const key = idempotencyKey();
      const bytes = await png(40, 30);
      const first = await upload(owner.liveKey, bytes, key).expect(201);
      const again = await upload(owner.liveKey, bytes, key).expect(200);
      expect(again.body.upload).toEqual(first.body.upload);
      expect(again.body.request_id).not.toBe(first.body.request_id);
      const rows = await t.dataSource.query(`SELECT id FROM uploads WHERE idempotency_key = $1`, [key]);
      expect(rows).toEqual([{ id: first.body.upload.id }]);
    });

    it('refuses the key with another body 409 idempotency_conflict, storing nothing', async () => {
      const key = idempotencyKey();
      await upload(owner.liveKey, await png(40, 30), key).expect(201);
      const before = (await rowsOf(owner.accountId)).length;
      expectError(await upload(owner.liveKey, await png(41, 30), key), 409, 'idempotency_conflict');
      const jpeg = await sharp(await png(40, 30))
        .jpeg()
        .toBuffer();
      expectError(
        await t
          .http()
          .post('/api/v1/uploads')
          .set(bearer(owner.liveKey))
          .set('Content-Type', 'image/jpeg')
          .set('Idempotency-Key', key)
          .send(jpeg),
        409,
        'idempotency_conflict',
      );
      expect((await rowsOf(owner.accountId)).length).toBe(before);
    });

    it('makes one upload of concurrent identical requests with one key', async () => {
      const account = await seedAccount(t, {});
      const key = idempotencyKey();
      const bytes = await png(200, 150, '#aa5500');
      const answers = await Promise.all(Array.from({ length: 6 }, () => upload(account.liveKey, bytes, key)));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      expect(new Set(answers.map((res) => res.body.upload.id as string)).size).toBe(1);
      expect(await rowsOf(account.accountId)).toHaveLength(1);
      expect(await storedFiles(account.accountId)).toHaveLength(1);
    });

    it('keeps the keys of different API keys apart; a malformed key is 400 and stores nothing', async () => {
      const account = await seedAccount(t, {});
      const key = idempotencyKey();
      const bytes = await png(20, 20);
      const live = await upload(account.liveKey, bytes, key).expect(201);
      const sandbox = await upload(account.sandboxKey, bytes, key).expect(201);
      expect(sandbox.body.upload.id).not.toBe(live.body.upload.id);
      const error = expectError(await upload(account.liveKey, bytes, 'short'), 400, 'invalid_request');
      expect(error.details).toEqual({ errors: [{ path: 'headers.idempotency-key', message: expect.any(String) }] });
      expect(await rowsOf(account.accountId)).toHaveLength(2);
    });
  });
});
