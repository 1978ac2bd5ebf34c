import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPEATED_SIGNAL_WINDOW_MS } from '../../src/core/bootstrap/stop-signals';
import { EventStream } from '../support/event-stream';
import {
  probeReadinessUntilOut,
  RequestFailed,
  runKeepAliveLoad,
  send,
  type Answer,
  type LoadRecord,
} from '../support/http-load';
import { fromFixture, paint, random } from '../support/image-fixtures';
import { cleanEnv, freePort, isListening, startService, waitForReady, type ServiceProcess } from '../support/processes';
import { createScratchDatabase } from '../support/scratch-database';
import { seedAccountOverHttp } from '../support/service-http';
import { deleteRedisKeys } from '../support/redis-keys';
import { testServices } from '../support/test-services';
import { sleep } from '../support/waiting';

const ADMIN_TOKEN = 'shutdown-admin-token-0123456789';
/** Long enough that the load balancer of these tests sees readiness 503 well before the listener closes. */
const DRAIN_SECONDS = '6';
/** Generous: a loaded machine must not turn a clean drain into a forced exit. */
const GRACE_SECONDS = '40';
const LOAD_PATHS = ['/api/v1/account', '/health/ready'];

/** Random pixels, so the PNG is large enough (about 190 KB) to be sent in two halves far apart. */
const noisePng = () => {
  const next = random(22);
  return fromFixture(paint(256, 256, () => [next() * 255, next() * 255, next() * 255]))
    .png()
    .toBuffer();
};

/**
 * `POST /api/v1/uploads` with its first half sent now and the rest when `finish()` is called:
 * a request in flight for as long as the test wants.
 */
function startSlowUpload(port: number, key: string, image: Buffer): { answered: Promise<Answer>; finish(): void } {
  const half = Math.floor(image.length / 2);
  let written = false;
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v1/uploads',
    agent: false,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'image/png', 'Content-Length': image.length },
  });
  const answered = new Promise<Answer>((done, fail) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('aborted', () => fail(new RequestFailed('ABORTED_RESPONSE', written)));
      res.on('end', () =>
        done({
          status: res.statusCode ?? 0,
          connection: res.headers.connection,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) => fail(new RequestFailed(error.code ?? error.message, written)));
  });
  // Awaited later; this keeps an early failure from counting as unhandled in the meantime.
  answered.catch(() => undefined);
  req.write(image.subarray(0, half));
  return {
    answered,
    finish: () => {
      req.end(image.subarray(half), () => (written = true));
    },
  };
}

/** The log lines of one message, parsed. */
function logLines(service: ServiceProcess, message: string): Array<Record<string, unknown>> {
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(`"msg":"${message}`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What the keep-alive load and the readiness probe of one drain saw. */
function expectCleanDrain(records: LoadRecord[], readiness: Array<number | string>, loops: number): void {
  // No request was cut: every one got a complete answer.
  expect(records.filter((record) => record.failure).map((record) => record.failure?.message)).toEqual([]);
  expect(records.filter((record) => !record.sentAfterDrainSeen).length).toBeGreaterThan(0);
  // Once readiness said 503, every answer closed its connection, and every loop was answered so.
  const afterDrainSeen = records.filter((record) => record.sentAfterDrainSeen);
  expect(afterDrainSeen.length).toBeGreaterThanOrEqual(loops);
  expect(afterDrainSeen.filter((record) => record.answer?.connection !== 'close')).toEqual([]);
  // The authenticated endpoint was served throughout: pools stay open until the last answer.
  expect(records.filter((record) => record.path === '/api/v1/account' && record.answer?.status !== 200).length).toBe(0);
  for (const record of afterDrainSeen.filter(({ path }) => path === '/health/ready')) {
    expect(record.answer?.status).toBe(503);
    expect(JSON.parse(record.answer?.body ?? '{}')).toMatchObject({ status: 'draining' });
  }
  // The probe went from 200 to 503 on fresh connections, so the listener was still open, and never back.
  expect(readiness.every((status) => typeof status === 'number')).toBe(true);
  expect(readiness[0]).toBe(200);
  const first503 = readiness.indexOf(503);
  expect(first503).toBeGreaterThan(0);
  expect(readiness.slice(first503).every((status) => status === 503)).toBe(true);
}

describe('the api role stopped by SIGTERM (node dist/main.js api)', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let dataDir: string;
  let image: Buffer;
  const processes: ServiceProcess[] = [];
  const redisPrefixes: string[] = [];

  beforeAll(async () => {
    database = await createScratchDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'imgjobs-api-shutdown-'));
    image = await noisePng();
  });
  afterAll(async () => {
    for (const service of processes) service.kill();
    await database.drop();
    for (const prefix of redisPrefixes) await deleteRedisKeys(testServices().redisUrl, `${prefix}:*`);
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startApi(
    settings: Record<string, string>,
  ): Promise<{ api: ServiceProcess; port: number; key: string }> {
    const port = await freePort();
    const redisPrefix = `e2e-api-shutdown-${port}`;
    redisPrefixes.push(redisPrefix);
    const api = startService(
      'api',
      cleanEnv({
        LOG_LEVEL: 'info',
        DATABASE_URL: database.url,
        REDIS_URL: testServices().redisUrl,
        REDIS_KEY_PREFIX: redisPrefix,
        PORT: String(port),
        ADMIN_TOKEN,
        DATA_DIR: dataDir,
        STORAGE_DIR: join(dataDir, 'results'),
        ...settings,
      }),
    );
    processes.push(api);
    await waitForReady(port);
    const { key } = await seedAccountOverHttp(`http://127.0.0.1:${port}`, ADMIN_TOKEN, {
      name: 'Shutdown',
      environment: 'live',
    });
    return { api, port, key };
  }

  /**
   * Runs the keep-alive load and the readiness probe, sends SIGTERM to the process once every
   * loop has a connection in use, and returns what they saw once both have ended.
   */
  async function loadAndSignal(api: ServiceProcess, port: number, key: string, loops: number) {
    let drainSeen = false;
    let everyLoopAnswered: () => void = () => undefined;
    const loadRunning = new Promise<void>((resolve) => (everyLoopAnswered = resolve));
    const load = runKeepAliveLoad({
      port,
      loops,
      paths: LOAD_PATHS,
      headers: { Authorization: `Bearer ${key}` },
      drainSeen: () => drainSeen,
      onFirstAnswers: everyLoopAnswered,
    });
    await loadRunning;
    const readiness = probeReadinessUntilOut(port, { onFirst503: () => (drainSeen = true) });
    await sleep(300);
    // As a container runtime does: the signal goes to the process itself, not to a group.
    api.child.kill('SIGTERM');
    const [records, probes] = await Promise.all([load, readiness]);
    return { records, probes };
  }

  it(
    'serves with Connection: close while readiness says 503, then stops accepting, ' +
      'answers the request in flight and exits 0',
    async () => {
      const { api, port, key } = await startApi({
        SHUTDOWN_DRAIN_SECONDS: DRAIN_SECONDS,
        SHUTDOWN_GRACE_SECONDS: GRACE_SECONDS,
      });
      try {
        const upload = startSlowUpload(port, key, image);
        const loops = 48;
        const { records, probes } = await loadAndSignal(api, port, key, loops);
        expectCleanDrain(records, probes, loops);
        // Liveness is not readiness: the draining process is alive.
        expect((await send(port, '/health/live')).status).toBe(200);

        await api.waitForOutput(/"msg":"listener closed/, 30_000);
        expect(await isListening(port)).toBe(false);
        const listenerClosed = logLines(api, 'listener closed')[0];
        // The upload was sent in part before the signal and is still in flight: the process waits for it.
        expect(listenerClosed.requestsInFlight).toBeGreaterThanOrEqual(1);
        expect(api.child.exitCode).toBeNull();
        upload.finish();
        const uploaded = await upload.answered;
        expect(uploaded.status).toBe(201);
        expect(uploaded.connection).toBe('close');
        expect(JSON.parse(uploaded.body)).toMatchObject({
          upload: { content_type: 'image/png', width: 256, height: 256, size_bytes: image.length },
        });

        expect(await api.exited).toBe(0);
        const output = api.output();
        const order = [
          'shutting down',
          'draining',
          'listener closed',
          'requests in flight finished',
          'shutdown complete',
        ];
        const positions = order.map((message) => output.indexOf(`"msg":"${message}`));
        expect(positions.every((position) => position >= 0)).toBe(true);
        expect([...positions].sort((a, b) => a - b)).toEqual(positions);
        expect(output).not.toMatch(/grace period exceeded/);
      } finally {
        api.kill();
      }
    },
    120_000,
  );

  // Each process's drain is the single-process drain tested above. The second process meets its
  // first requests in the load: readiness probes and the first limit checks together.
  it('drains every process of API_PROCESSES=2 when only the primary is signalled', async () => {
    const { api, port, key } = await startApi({
      API_PROCESSES: '2',
      SHUTDOWN_DRAIN_SECONDS: DRAIN_SECONDS,
      SHUTDOWN_GRACE_SECONDS: GRACE_SECONDS,
    });
    try {
      await api.waitForOutput(/API listening[\s\S]*API listening/);
      const pids = logLines(api, 'API listening').map((line) => line.pid);
      expect(new Set(pids).size).toBe(2);
      const loops = 16;
      const { records, probes } = await loadAndSignal(api, port, key, loops);
      // A process that died would have cut its connections: named first, before what the load saw.
      expect(logLines(api, 'API process exited unexpectedly')).toEqual([]);
      expectCleanDrain(records, probes, loops);

      expect(await api.exited).toBe(0);
      // Each process drained on its own: readiness said 503 in each, whichever a probe reached.
      const drained = logLines(api, 'draining').map((line) => line.pid);
      expect(drained.sort()).toEqual([...pids].sort());
      expect(
        logLines(api, 'listener closed')
          .map((line) => line.pid)
          .sort(),
      ).toEqual([...pids].sort());
      expect(await isListening(port)).toBe(false);
    } finally {
      api.kill();
    }
  }, 120_000);

  it('exits at once with code 1, logged, on a second SIGTERM during the drain', async () => {
    // A drain longer than this test may run: only the second signal can end it in time.
    const { api, port } = await startApi({ SHUTDOWN_DRAIN_SECONDS: '90', SHUTDOWN_GRACE_SECONDS: '120' });
    try {
      api.child.kill('SIGTERM');
      await api.waitForOutput(/"msg":"draining/);
      expect((await send(port, '/health/ready')).status).toBe(503);
      // A copy of the first signal (npm's, or a process group's) is not a second one.
      await sleep(REPEATED_SIGNAL_WINDOW_MS + 500);
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(1);
      expect(logLines(api, 'second stop signal')).toHaveLength(1);
      expect(api.output()).not.toMatch(/shutdown complete/);
    } finally {
      api.kill();
    }
  }, 60_000);

  it('ends open event streams when the drain begins, so they never hold the shutdown', async () => {
    const { api, port, key } = await startApi({ SHUTDOWN_DRAIN_SECONDS: '1', SHUTDOWN_GRACE_SECONDS: '10' });
    try {
      const streams = [await EventStream.ready(port, key), await EventStream.ready(port, key)];
      api.child.kill('SIGTERM');
      for (const stream of streams) await stream.waitForEnd();
      expect(streams.map((stream) => stream.events.map((event) => event.event))).toEqual([
        ['ready', 'closing'],
        ['ready', 'closing'],
      ]);
      // Stopped at the drain's end, not at the grace period's (which exits 1, logged): nothing
      // was left in flight when the listener closed.
      expect(await api.exited).toBe(0);
      expect(logLines(api, 'listener closed')[0]).toMatchObject({ requestsInFlight: 0 });
      expect(api.output()).not.toMatch(/grace period exceeded/);
    } finally {
      api.kill();
    }
  }, 60_000);

  it('exits with code 1, logged, when a request in flight outlasts the grace period', async () => {
    const { api, port, key } = await startApi({ SHUTDOWN_DRAIN_SECONDS: '1', SHUTDOWN_GRACE_SECONDS: '4' });
    try {
      const upload = startSlowUpload(port, key, image);
      // The upload's first half reaches the process before the signal: it is in flight.
      await sleep(500);
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(1);
      expect(logLines(api, 'listener closed')[0]).toMatchObject({ requestsInFlight: 1 });
      expect(logLines(api, 'shutdown grace period exceeded')[0]).toMatchObject({
        graceSeconds: 4,
        requestsInFlight: 1,
      });
      await expect(upload.answered).rejects.toBeInstanceOf(RequestFailed);
    } finally {
      api.kill();
    }
  }, 60_000);
});
