/**
 * The service (role `api` or `worker` from argv) whose live image_editing tool is the fake
 * provider: the real modules, queues and database, with only the outside provider replaced.
 * Started as child processes by end-to-end tests that must kill a worker holding paid work.
 */
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { configureHttpApp } from '../../src/core/bootstrap/http-app';
import { parseRole, servesHttp } from '../../src/core/bootstrap/role';
import { loadConfig } from '../../src/core/config/load-config';
import { runMigrations } from '../../src/core/database/migrate';
import { ToolId } from '../../src/modules/catalog/tools';
import type { ToolOutput, ToolTask } from '../../src/modules/tools/tool-runner';
import { FakeProviderRunner, withLiveTools } from './jobs';
import { sleep } from './waiting';

/** Slow sources (external_id `slow…`) keep the worker busy long enough to be killed mid-batch. */
class SlowFakeProvider extends FakeProviderRunner {
  override async run(task: ToolTask): Promise<ToolOutput> {
    if (task.externalId?.startsWith('slow')) await sleep(Number(process.env.FAKE_PROVIDER_DELAY_MS ?? 3000));
    return super.run(task);
  }
}

async function main(): Promise<void> {
  const role = parseRole(process.argv[2]);
  const config = loadConfig(process.env);
  await runMigrations({ url: config.DATABASE_URL as string, poolSize: 1 });
  const moduleRef = await withLiveTools(new Map([[ToolId.ImageEditing, new SlowFakeProvider()]]))(
    Test.createTestingModule({
      imports: [
        AppModule.forRole(role, config, {
          databaseUrl: config.DATABASE_URL as string,
          redisUrl: config.REDIS_URL as string,
        }),
      ],
    }),
  ).compile();
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
