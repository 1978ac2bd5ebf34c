/**
 * The service (role `api` or `worker` from argv) whose live image_editing tool is the fake
 * provider: the real modules, queues and database, with only the outside provider replaced.
 * Started as child processes by end-to-end tests that must kill a worker holding paid work.
 */
import 'reflect-metadata';
import { getQueueToken } from '@nestjs/bullmq';
import { Test } from '@nestjs/testing';
import type { Queue } from 'bullmq';
import { AppModule } from '../../src/app.module';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { configureHttpApp } from '../../src/core/bootstrap/http-app';
import { parseRole, servesHttp } from '../../src/core/bootstrap/role';
import { loadConfig } from '../../src/core/config/load-config';
import { runMigrations } from '../../src/core/database/migrate';
import { QueueName } from '../../src/core/queue/queue-name';
import { ToolId } from '../../src/modules/catalog/tools';
import { ResultWorkService } from '../../src/modules/jobs/worker/result-work.service';
import type { ToolOutput, ToolTask } from '../../src/modules/tools/tool-runner';
import { FakeProviderRunner, withLiveTools } from './jobs';
import { SweepRace } from './sweep-race';
import { sleep } from './waiting';

/**
 * Slow sources (external_id `slow…`) keep the worker busy long enough to be killed mid-batch.
 * With a sweep race, sources the provider refuses (`fail…`) fail while the sweeper looks at them.
 */
class SlowFakeProvider extends FakeProviderRunner {
  constructor(private readonly sweepRace: SweepRace | undefined) {
    super();
  }

  override async run(task: ToolTask): Promise<ToolOutput> {
    if (task.externalId?.startsWith('slow')) await sleep(Number(process.env.FAKE_PROVIDER_DELAY_MS ?? 3000));
    if (this.sweepRace && task.externalId?.startsWith('fail')) {
      return this.sweepRace.runOnceRead(task.resultId, () => super.run(task));
    }
    return super.run(task);
  }
}

async function main(): Promise<void> {
  const role = parseRole(process.argv[2]);
  const config = loadConfig(process.env);
  await runMigrations({ url: config.DATABASE_URL as string, poolSize: 1 });
  // FAKE_PROVIDER_SWEEP_RACE=1 stages the race between the sweeper and a failing attempt (see SweepRace).
  const sweepRace = process.env.FAKE_PROVIDER_SWEEP_RACE === '1' ? new SweepRace() : undefined;
  const moduleRef = await withLiveTools(new Map([[ToolId.ImageEditing, new SlowFakeProvider(sweepRace)]]))(
    Test.createTestingModule({
      imports: [
        AppModule.forRole(role, config, {
          databaseUrl: config.DATABASE_URL as string,
          redisUrl: config.REDIS_URL as string,
        }),
      ],
    }),
  ).compile();
  if (sweepRace && !servesHttp(role)) {
    sweepRace.holdReads(moduleRef.get<Queue>(getQueueToken(QueueName.Processing), { strict: false }));
    sweepRace.holdSettlements(moduleRef.get(ResultWorkService, { strict: false }));
  }
  const running: INestApplicationContext = servesHttp(role)
    ? moduleRef.createNestApplication({ bodyParser: false })
    : moduleRef;
  if (servesHttp(role)) {
    const app = running as INestApplication;
    configureHttpApp(app);
    await app.listen(config.PORT);
  } else {
    await running.init();
  }
  process.stdout.write(`fake provider ${role} started\n`);
  process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
