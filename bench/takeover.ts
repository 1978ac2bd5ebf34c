/**
 * `npm run bench:takeover`: how soon the results a dead worker held are taken over by another,
 * with the default queue lock (WORKER_LOCK_SECONDS, 10 s) and stalled check
 * (WORKER_STALLED_CHECK_SECONDS, every 4 s), whose sum (14 s) is the documented bound.
 *
 * The service runs as child processes whose live image_editing tool is the fake provider
 * (test/support/fake-provider-service.ts, as worker-crash.e2e-spec.ts runs it): an API, and for
 * each of BENCH_ROUNDS (5) rounds a worker that holds BENCH_RESULTS (3) slow results of one job
 * when it is killed with SIGKILL, and a replacement worker started just before the kill.
 * Reported per round: the lock each result had left at the kill (Redis PTTL of BullMQ's lock
 * key), and the time from the kill to its start on the replacement (BullMQ's processedOn). Needs
 * PostgreSQL (DATABASE_URL, where a database of its own is created and dropped) and Redis
 * (REDIS_URL); the standard local ports by default.
 */
import { hostname, loadavg } from 'node:os';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { postJson, seedAccountOverHttp } from '../test/support/service-http';
import { readUntil } from '../test/support/waiting';
import { BENCH_ADMIN_TOKEN, freePort, serviceEnv, serviceQueue, withDeployment, type ServiceProcess } from './harness';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RESULTS = Number(process.env.BENCH_RESULTS ?? 3);
/** On the worker to be killed, a slow result runs until the kill; on the replacement it ends soon. */
const HELD_MS = 600_000;
const REPLACEMENT_MS = 200;

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

async function main(): Promise<void> {
  const rounds: Array<{ lockLeftMs: number[]; takeoverMs: number[] }> = [];
  const loadAtStart = loadavg().map((value) => value.toFixed(2));
  await withDeployment('takeover', async (deployment) => {
    const apiPort = await freePort();
    const base = `http://127.0.0.1:${apiPort}`;
    const env = serviceEnv({
      LOG_LEVEL: 'warn',
      SEGMENTER: 'none',
      ...deployment.settings,
      PORT: String(apiPort),
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      STORAGE_DIR: deployment.storageDir,
      PUBLIC_BASE_URL: base,
      WORKER_CONCURRENCY_PROCESSING: String(RESULTS),
      LIMIT_CREATES_PER_HOUR_KEY: '1000',
      LIMIT_CREATES_PER_HOUR_ACCOUNT: '1000',
      LIMIT_CREATES_PER_HOUR_IP: '1000',
    });
    const service = (role: 'api' | 'worker', slowMs: number) =>
      deployment.start(
        process.execPath,
        ['-r', 'ts-node/register/transpile-only', 'test/support/fake-provider-service.ts', role],
        { ...env, FAKE_PROVIDER_DELAY_MS: String(slowMs) },
      );
    const api = service('api', REPLACEMENT_MS);
    await deployment.waitUntilReady(api, apiPort, 120_000);
    const { key } = await seedAccountOverHttp(base, BENCH_ADMIN_TOKEN, {
      name: 'takeover',
      credits: ROUNDS * RESULTS,
      environment: 'live',
    });
    const processing = serviceQueue(deployment, 'processing');
    const client = (await processing.getBackend().client) as unknown as Redis;
    const nameOf = (worker: ServiceProcess) => `${hostname()}:${worker.child.pid}`;

    for (let round = 0; round < ROUNDS; round++) {
      const doomed = service('worker', HELD_MS);
      await doomed.waitForOutput(/fake provider worker started/, 120_000);
      const created = await postJson(
        `${base}/api/v1/image/edit`,
        {
          input: Array.from({ length: RESULTS }, (_, i) => ({
            image_url: `https://images.example.com/${round}-${i}.jpg`,
            external_id: `slow-${round}-${i}`,
          })),
        },
        { Authorization: `Bearer ${key}`, 'Idempotency-Key': `takeover-${round}` },
      );
      if (created.status !== 202) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
      const jobId = (created.body.job as { id: string }).id;
      const held = await readUntil(
        async () => (await processing.getActive()).filter((entry) => entry.processedBy === nameOf(doomed)),
        (entries) => entries.length === RESULTS,
        `the worker to hold all ${RESULTS} results`,
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      const replacement = service('worker', REPLACEMENT_MS);
      await replacement.waitForOutput(/fake provider worker started/, 120_000);

      const killedAt = Date.now();
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      const lockLeftMs = await Promise.all(
        held.map((entry) => client.pttl(`${processing.toKey(entry.id as string)}:lock`)),
      );
      const retaken = await Promise.all(
        held.map((entry) =>
          readUntil(
            async () => processing.getJob(entry.id as string),
            (found): found is Job => found?.processedBy === nameOf(replacement),
            `result ${String(entry.id)} to be taken over`,
            { timeoutMs: 120_000, intervalMs: 20 },
          ),
        ),
      );
      const takeoverMs = retaken.map((entry) => (entry?.processedOn as number) - killedAt);
      rounds.push({ lockLeftMs, takeoverMs });
      log(`round ${round + 1}: lock left ${lockLeftMs.join(', ')} ms; taken over after ${takeoverMs.join(', ')} ms`);
      const readJob = async () => {
        const res = await fetch(`${base}/api/v1/jobs/${jobId}`, { headers: { Authorization: `Bearer ${key}` } });
        return (await res.json()) as { job?: { status: string } };
      };
      await readUntil(readJob, (read) => read.job?.status === 'completed', `job ${jobId} to complete`, {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      replacement.signal('SIGTERM');
      await replacement.exited;
    }
  });

  const all = rounds.flatMap((round) => round.takeoverMs);
  console.log('| round | lock left at the kill, ms | taken over after the kill, ms |\n|---|---|---|');
  rounds.forEach((round, i) =>
    console.log(`| ${i + 1} | ${round.lockLeftMs.join(', ')} | ${round.takeoverMs.join(', ')} |`),
  );
  const loadAtEnd = loadavg().map((value) => value.toFixed(2));
  console.log(
    `\n${all.length} results in ${rounds.length} kills: taken over after ${Math.min(...all)} to ` +
      `${Math.max(...all)} ms (lock 10 s + stalled check 4 s = 14 s); load average at the start ` +
      `${loadAtStart.join(', ')}, at the end ${loadAtEnd.join(', ')}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
