/**
 * `npm run bench:webhooks`: webhook delivery throughput and latency. A worker process (role
 * `worker`, webhook queue only) delivers 10,000 events to a local HTTPS receiver that answers
 * 200 at once. Events are recorded through the service's own outbox, in transactions of one
 * job's results as the lifecycle writes them, at BENCH_RATE events per second (0: as fast as
 * this process can); latency runs from an event's `created_at` to its receipt.
 */
import { execFileSync, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { ProcessRole } from '../src/core/bootstrap/role';
import { loadConfig } from '../src/core/config/load-config';
import { runMigrations } from '../src/core/database/migrate';
import { ToolId } from '../src/modules/catalog/tools';
import { JobStatus, ResultStatus } from '../src/modules/jobs/job-status';
import { WebhookOutbox, type RecordedDelivery } from '../src/modules/webhooks/webhook-outbox.service';
import { freePort, withDeployment } from './harness';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 20);
const RESULTS_PER_JOB = 20;
/** Events offered per second, one job's results at a time; 0 records them as fast as possible. */
const RATE = Number(process.env.BENCH_RATE ?? 1000);
/** Delivered first and not measured: new TLS connections, first secrets and JIT warm up here. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);

function certificate(): { cert: string; key: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'imgjobs-bench-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  return {
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    file: join(dir, 'cert.pem'),
  };
}

interface ReceiverMessage {
  type: string;
  port?: number;
  latencies?: Array<[number, number]>;
  duplicates?: number;
  lastReceipt?: number;
  received?: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function main(): Promise<void> {
  await withDeployment('webhooks', async (deployment) => {
    const tls = certificate();
    const receiver = fork(join(__dirname, 'webhook-receiver.ts'), [], {
      execArgv: ['-r', 'ts-node/register/transpile-only'],
      env: { ...process.env, BENCH_TLS_CERT: tls.cert, BENCH_TLS_KEY: tls.key, BENCH_EVENTS: String(WARMUP + EVENTS) },
    });
    const messages = (type: string) =>
      new Promise<ReceiverMessage>((resolveMessage) => {
        const listener = (message: ReceiverMessage) => {
          if (message.type !== type) return;
          receiver.off('message', listener);
          resolveMessage(message);
        };
        receiver.on('message', listener);
      });
    const receiverPort = (await messages('listening')).port ?? 0;

    deployment.onClose(() => receiver.kill());

    const settings = {
      ...deployment.settings,
      LOG_LEVEL: 'warn',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      DATABASE_POOL_SIZE: '20',
    };
    await runMigrations({ url: deployment.databaseUrl, poolSize: 1 });
    const config = loadConfig({ ...settings, NODE_ENV: 'production' });
    const app = await NestFactory.createApplicationContext(
      AppModule.forRole(ProcessRole.Api, config, {
        databaseUrl: deployment.databaseUrl,
        redisUrl: deployment.redisUrl,
      }),
      { logger: ['error'] },
    );
    const outbox = app.get(WebhookOutbox);
    const dataSource = app.get(DataSource);
    const webhookUrl = `https://127.0.0.1:${receiverPort}/hooks`;

    // Accounts, their keys and jobs, written directly: the benchmark is about what follows.
    const jobs: Array<{ id: string; accountId: string; results: string[] }> = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const accountId = randomUUID();
      const keyId = randomUUID();
      await dataSource.query(`INSERT INTO accounts (id, name, paid_credits) VALUES ($1, $2, 0)`, [
        accountId,
        `bench ${a}`,
      ]);
      await dataSource.query(
        `INSERT INTO api_keys (id, account_id, environment, prefix, secret_hash) VALUES ($1, $2, 'sandbox', $3, $4)`,
        [keyId, accountId, `sk_sandbox_${a}`, randomBytes(32).toString('hex')],
      );
      for (let j = 0; j < Math.ceil((WARMUP + EVENTS) / RESULTS_PER_JOB / ACCOUNTS); j++) {
        const jobId = randomUUID();
        await dataSource.query(
          `INSERT INTO jobs (id, account_id, api_key_id, sandbox, api, kind, capacity_group, status, total_results,
                             credits_reserved, cost_key, pricing_version, credits_per_result, output_format, ` +
            `options, webhook_url)
           VALUES ($1, $2, $3, true, 'image_editing', 'standard', 'processing', 'processing', $4, 0, ` +
            `'image_editing', 1, 0, 'png', '{}', $5)`,
          [jobId, accountId, keyId, RESULTS_PER_JOB, webhookUrl],
        );
        const results = Array.from({ length: RESULTS_PER_JOB }, () => randomUUID());
        await dataSource.query(
          `INSERT INTO job_results (id, job_id, account_id, sandbox, capacity_group, index, status, credits_reserved)
           SELECT id, $1, $2, true, 'processing', ordinality - 1, 'completed', 0 FROM unnest($3::uuid[]) WITH ` +
            `ORDINALITY AS r(id, ordinality)`,
          [jobId, accountId, results],
        );
        jobs.push({ id: jobId, accountId, results });
      }
    }

    const workerNodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const worker = deployment.start(process.execPath, [...workerNodeArgs, 'dist/main.js', 'worker'], {
      ...process.env,
      ...settings,
      NODE_ENV: 'production',
      NODE_EXTRA_CA_CERTS: tls.file,
      WORKER_QUEUES: 'webhook-delivery',
      WORKER_HEALTH_PORT: String(await freePort()),
      WORKER_CONCURRENCY_WEBHOOKS: process.env.WORKER_CONCURRENCY_WEBHOOKS ?? '64',
    });
    worker.child.stdout?.pipe(process.stdout);
    worker.child.stderr?.pipe(process.stderr);
    await new Promise((ready) => setTimeout(ready, 3000));

    // Accounts take turns, as events of many clients' jobs interleave in a real worker.
    const jobsPerAccount = jobs.length / ACCOUNTS;
    const interleaved = Array.from(
      { length: jobs.length },
      (_, i) => jobs[(i % ACCOUNTS) * jobsPerAccount + Math.floor(i / ACCOUNTS)],
    );
    const record = async (batch: typeof jobs, count: number, rate: number): Promise<number> => {
      const begun = Date.now();
      let recorded = 0;
      for (const [index, job] of batch.entries()) {
        if (recorded >= count) break;
        const due = begun + (index * RESULTS_PER_JOB * 1000) / (rate || Infinity);
        if (due > Date.now()) await new Promise((wait) => setTimeout(wait, due - Date.now()));
        const deliveries: RecordedDelivery[] = await dataSource.transaction(async (manager) => {
          const written: RecordedDelivery[] = [];
          for (const resultId of job.results.slice(0, count - recorded)) {
            written.push(
              ...(await outbox.recordResult(
                manager,
                {
                  id: job.id,
                  accountId: job.accountId,
                  api: ToolId.ImageEditing,
                  status: JobStatus.Processing,
                  sandbox: true,
                  webhookUrl,
                },
                {
                  id: resultId,
                  externalId: null,
                  status: ResultStatus.Completed,
                  resultKey: `bench/${resultId}.png`,
                  thumbnailKey: null,
                  sourcePreviewKey: null,
                  uncertainty: null,
                  segmentation: null,
                  errorCode: null,
                  errorMessage: null,
                  needsReview: false,
                  review: null,
                },
              )),
            );
          }
          return written;
        });
        recorded += deliveries.length;
        await outbox.dispatch(deliveries);
      }
      return recorded;
    };
    const warmupJobs = Math.ceil(WARMUP / RESULTS_PER_JOB);
    await record(interleaved.slice(0, warmupJobs), WARMUP, RATE);
    for (;;) {
      receiver.send({ type: 'status' });
      if (((await messages('status')).received ?? 0) >= WARMUP) break;
      await new Promise((wait) => setTimeout(wait, 200));
    }
    const started = Date.now();
    await record(interleaved.slice(warmupJobs), EVENTS, RATE);
    const producedIn = Date.now() - started;
    const timeout = setTimeout(() => receiver.send({ type: 'status' }), 120_000);
    const finished = await Promise.race([messages('done'), messages('status')]);
    clearTimeout(timeout);
    if (finished.type !== 'done') throw new Error(`only ${finished.received} of ${EVENTS} events arrived in 2 minutes`);
    const events = (finished.latencies ?? []).filter(([createdAt]) => createdAt >= started);
    const latencies = events.map(([, latency]) => latency).sort((a, b) => a - b);
    const bySecond = new Map<number, number[]>();
    for (const [createdAt, latency] of events) {
      const second = Math.floor((createdAt - started) / 1000);
      bySecond.set(second, [...(bySecond.get(second) ?? []), latency]);
    }
    const duplicates = finished.duplicates ?? 0;
    const elapsed = (finished.lastReceipt ?? Date.now()) - started;
    const report = {
      events: EVENTS,
      offered_per_second: RATE || 'unpaced',
      accounts: ACCOUNTS,
      worker_concurrency: Number(process.env.WORKER_CONCURRENCY_WEBHOOKS ?? 64),
      recorded_in_ms: producedIn,
      delivered_in_ms: elapsed,
      deliveries_per_second: Math.round((EVENTS / elapsed) * 1000),
      latency_ms: {
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        max: latencies.at(-1),
      },
      warmup_events: WARMUP,
      p99_by_second: [...bySecond]
        .sort(([a], [b]) => a - b)
        .map(([, values]) =>
          percentile(
            values.sort((a, b) => a - b),
            99,
          ),
        ),
      duplicates,
    };
    console.log(JSON.stringify(report, null, 2));
    await app.close();
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
