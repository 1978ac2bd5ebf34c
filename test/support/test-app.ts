import { randomBytes } from 'node:crypto';
import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { configureHttpApp } from '../../src/core/bootstrap/http-app';
import { ProcessRole } from '../../src/core/bootstrap/role';
import type { AppConfig } from '../../src/core/config/config.schema';
import { loadConfig } from '../../src/core/config/load-config';
import { runMigrations } from '../../src/core/database/migrate';
import { AdminService } from '../../src/modules/admin/admin.service';
import { KeyEnvironment } from '../../src/modules/auth/api-key.entity';
import { deleteRedisKeys } from './redis-keys';
import { testServices } from './test-services';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
/** A token that reads /metrics and nothing else (METRICS_TOKEN), apart from the admin token. */
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789';

/**
 * Three wrong operator tokens per client address in the window, behind one trusted proxy, so a
 * test names the address of each request in X-Forwarded-For; with METRICS_TOKEN set.
 */
export const OPERATOR_TOKEN_LIMIT_SETTINGS = {
  LIMIT_FAILED_ADMIN_AUTH_PER_HOUR_IP: '3',
  RATE_LIMIT_WINDOW_SECONDS: '60',
  METRICS_TOKEN: TEST_METRICS_TOKEN,
  TRUST_PROXY: '1',
};

/**
 * Where tests keep the prepared segmentation model, shared by every test run on the machine (preparation is atomic).
 */
export const TEST_MODELS_DIR = join(tmpdir(), 'imgjobs-test-models');

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  dataSource: DataSource;
  /** A supertest client bound to the app's HTTP server. */
  http: () => ReturnType<typeof request>;
  close(): Promise<void>;
}

/** Where the module graph finds PostgreSQL (and its schema) and Redis. */
export interface TestConnections {
  databaseUrl: string;
  redisUrl: string;
  databaseSchema: string;
}

export interface TestAppOptions {
  /** Which half of the service to boot; `all` runs the queue workers in-process too. */
  role?: ProcessRole;
  /** Replaces providers at the edge of the world (a tool provider, say) with test doubles. */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /** The modules to boot instead of the whole service (`AppModule` for `role`), for a suite about one part of it. */
  modules?: (config: AppConfig, connections: TestConnections) => NonNullable<ModuleMetadata['imports']>;
}

/**
 * Compiles `imports` into an app with the same HTTP stack `main.ts` builds and initialises it;
 * closing it closes the app alone, leaving the schema and the Redis keys to whoever made them.
 */
export async function startTestApp(
  imports: NonNullable<ModuleMetadata['imports']>,
  config: AppConfig,
  override: TestAppOptions['override'] = (builder) => builder,
): Promise<TestApp> {
  const moduleRef = await override(Test.createTestingModule({ imports })).compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, bufferLogs: true });
  configureHttpApp(app);
  await app.init();
  return {
    app,
    config,
    dataSource: app.get(DataSource),
    http: () => request(app.getHttpServer()),
    close: () => app.close(),
  };
}

/**
 * Boots the real module graph against the machine's PostgreSQL and Redis, isolated by a fresh
 * schema and Redis key prefix, with the same HTTP stack `main.ts` builds.
 */
export async function createTestApp(
  settings: Record<string, string> = {},
  {
    role = ProcessRole.Api,
    override,
    modules = (config, connections) => [AppModule.forRole(role, config, connections)],
  }: TestAppOptions = {},
): Promise<TestApp> {
  const { databaseUrl, redisUrl } = testServices();
  const suffix = randomBytes(6).toString('hex');
  const schema = `t_${suffix}`;
  await runMigrations({ url: databaseUrl, poolSize: 1, schema });
  const config = loadConfig({
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    REDIS_KEY_PREFIX: `test-${suffix}`,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    STORAGE_DIR: join(tmpdir(), `imgjobs-test-${suffix}`),
    // No segmentation model unless a test asks for one (SEGMENTER: 'local'): loading it costs seconds and a gigabyte.
    SEGMENTER: 'none',
    MODELS_DIR: TEST_MODELS_DIR,
    ...settings,
  });
  const connections = { databaseUrl, redisUrl, databaseSchema: schema };
  const testApp = await startTestApp(modules(config, connections), config, override);
  return {
    ...testApp,
    async close() {
      await testApp.close();
      await rm(config.STORAGE_DIR, { recursive: true, force: true });
      const cleanup = new DataSource({ type: 'postgres', url: databaseUrl });
      await cleanup.initialize();
      await cleanup.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await cleanup.destroy();
      await deleteRedisKeys(redisUrl, `${config.REDIS_KEY_PREFIX}:*`);
    },
  };
}

export interface SeededAccount {
  accountId: string;
  liveKey: string;
  sandboxKey: string;
  liveKeyId: string;
  sandboxKeyId: string;
}

/** An account with one live and one sandbox key, made through the operator services. */
export async function seedAccount(
  testApp: TestApp,
  {
    credits = 100,
    apiAccess = true,
    name = 'Test account',
  }: { credits?: number; apiAccess?: boolean; name?: string } = {},
): Promise<SeededAccount> {
  const admin = testApp.app.get(AdminService, { strict: false });
  const account = await admin.createAccount({ name, credits, apiAccess });
  const live = await admin.issueKey(account.id, KeyEnvironment.Live, null);
  const sandbox = await admin.issueKey(account.id, KeyEnvironment.Sandbox, null);
  return {
    accountId: account.id,
    liveKey: live.secret,
    sandboxKey: sandbox.secret,
    liveKeyId: live.apiKey.id,
    sandboxKeyId: sandbox.apiKey.id,
  };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
