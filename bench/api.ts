/**
 * `npm run bench:api`: throughput and latency of job creation and job reads against the built
 * API (role `api`, so no worker competes for the CPU), beside a bare NestJS route on the same
 * machine. Limits are raised by configuration; sandbox keys are spread over many accounts. Each
 * row also gives the CPU time per request of the API, PostgreSQL, Redis and the load generator.
 *
 * BENCH_SCENARIOS, BENCH_CONNECTIONS, BENCH_SECONDS and BENCH_ACCOUNTS shape the run;
 * BENCH_API_NODE_ARGS adds Node flags to the API (`--cpu-prof`, `--trace-gc`),
 * BENCH_API_NODE_OPTIONS replaces the image's NODE_OPTIONS, BENCH_API_STDOUT=1 shows the API's
 * standard output (where V8 traces go), and DATABASE_POOL_SIZE overrides the service's default.
 */
import autocannon from 'autocannon';
import {
  BENCH_ADMIN_TOKEN,
  freePort,
  SERVICE_NODE_OPTIONS,
  UNLIMITED_LIMITS,
  waitFor,
  withDeployment,
  type Deployment,
  type ServiceProcess,
} from './harness';
import { startCpuCount, type CpuGroup } from './process-cpu';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 200);
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '16,64,256').split(',').map(Number);
/** Which scenarios to run: any of bare, create, read. */
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? 'bare,create,read').split(','));
/** As deployed: the image's Node options, unless a run replaces them. */
const NODE_OPTIONS = process.env.BENCH_API_NODE_OPTIONS ?? SERVICE_NODE_OPTIONS;

interface Row {
  scenario: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU milliseconds per request, by process group. */
  cpuMs: Record<CpuGroup, number>;
}

/**
 * `node <args>` in the deployment with the parent's environment and `env`; its standard error
 * shown, its standard output too with BENCH_API_STDOUT.
 */
function start(deployment: Deployment, args: string[], env: NodeJS.ProcessEnv): ServiceProcess {
  const started = deployment.start(process.execPath, args, { ...process.env, ...env });
  started.child.stderr?.pipe(process.stderr);
  if (process.env.BENCH_API_STDOUT) started.child.stdout?.pipe(process.stdout);
  return started;
}

async function run(
  scenario: string,
  server: ServiceProcess,
  connections: number,
  options: Omit<autocannon.Options, 'connections' | 'duration'>,
): Promise<Row> {
  const cpuUsed = startCpuCount(server.child.pid ?? 0);
  const result = await autocannon({ ...options, connections, duration: DURATION_SECONDS });
  const cpu = cpuUsed();
  const requests = Math.max(1, result.requests.total);
  const perRequest = (seconds: number) => Math.round((seconds * 1000 * 1000) / requests) / 1000;
  return {
    cpuMs: {
      api: perRequest(cpu.api),
      postgres: perRequest(cpu.postgres),
      redis: perRequest(cpu.redis),
      load: perRequest(cpu.load),
    },
    scenario,
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function main(): Promise<void> {
  await withDeployment('api', async (deployment) => {
    const apiPort = await freePort();
    const barePort = await freePort();
    const base = `http://127.0.0.1:${apiPort}`;
    const nodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const api = start(deployment, [...nodeArgs, 'dist/main.js', 'api'], {
      PORT: String(apiPort),
      NODE_OPTIONS,
      ...deployment.settings,
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ...UNLIMITED_LIMITS,
    });
    const bare = start(deployment, ['-r', 'ts-node/register/transpile-only', 'bench/bare-server.ts'], {
      PORT: String(barePort),
      NODE_OPTIONS,
    });
    await waitFor(`${base}/health/ready`);
    await waitFor(`http://127.0.0.1:${barePort}/bare`);

    const keys: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const headers = { Authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'Content-Type': 'application/json' };
      const account = (await (
        await fetch(`${base}/admin/v1/accounts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `bench ${i}` }),
        })
      ).json()) as { account: { id: string } };
      const key = (await (
        await fetch(`${base}/admin/v1/accounts/${account.account.id}/api-keys`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ environment: 'sandbox' }),
        })
      ).json()) as { secret: string };
      keys.push(key.secret);
    }

    const body = JSON.stringify({ input: [{ image_url: 'https://images.example.com/a.jpg', external_id: 'bench' }] });
    const jobIds: Array<{ key: string; id: string }> = [];
    for (const key of keys) {
      const created = await fetch(`${base}/api/v1/image/edit`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': `seed-${key}`,
        },
        body,
      });
      jobIds.push({ key, id: ((await created.json()) as { job: { id: string } }).job.id });
    }

    const rows: Row[] = [];
    let sequence = 0;
    for (const connections of CONNECTIONS) {
      if (SCENARIOS.has('bare'))
        rows.push(await run('bare NestJS route', bare, connections, { url: `http://127.0.0.1:${barePort}/bare` }));
      if (SCENARIOS.has('create'))
        rows.push(
          await run('POST /api/v1/image/edit (sandbox)', api, connections, {
            url: base,
            requests: [
              {
                method: 'POST',
                path: '/api/v1/image/edit',
                setupRequest: (request) => {
                  const n = sequence++;
                  return {
                    ...request,
                    body,
                    headers: {
                      'content-type': 'application/json',
                      authorization: `Bearer ${keys[n % keys.length]}`,
                      'idempotency-key': `${deployment.redisPrefix}-${n}`,
                    },
                  };
                },
              },
            ],
          }),
        );
      if (SCENARIOS.has('read'))
        rows.push(
          await run('GET /api/v1/jobs/{id}', api, connections, {
            url: base,
            requests: [
              {
                method: 'GET',
                setupRequest: (request) => {
                  const job = jobIds[sequence++ % jobIds.length];
                  return {
                    ...request,
                    path: `/api/v1/jobs/${job.id}`,
                    headers: { authorization: `Bearer ${job.key}` },
                  };
                },
              },
            ],
          }),
        );
    }

    const bareByConnections = new Map(
      rows.filter((r) => r.scenario.startsWith('bare')).map((r) => [r.connections, r.rps]),
    );
    const lines = [
      '| scenario | connections | requests/s | p50 ms | p99 ms | vs bare route | non-2xx | errors | CPU ms/request: ' +
        'API, PostgreSQL, Redis, load generator |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.scenario} | ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ` +
          `${(r.rps / (bareByConnections.get(r.connections) ?? r.rps)).toFixed(2)} | ${r.non2xx} | ${r.errors} | ` +
          `${r.cpuMs.api} / ${r.cpuMs.postgres} / ${r.cpuMs.redis} / ${r.cpuMs.load} |`,
      ),
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
