import 'reflect-metadata';
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as NestPinoLogger } from 'nestjs-pino';
import pino from 'pino';
import { AppModule } from './app.module';
import { superviseApiProcesses, type ApiSupervisor } from './core/bootstrap/api-cluster';
import { developmentAdminToken, printDevelopmentCredentials } from './core/bootstrap/development-credentials';
import { ensureLocalRedis, type StartedService } from './core/bootstrap/development-services';
import { EmbeddedDatabaseError, startEmbeddedPostgres } from './core/bootstrap/embedded-postgres/embedded-postgres';
import { configureHttpApp } from './core/bootstrap/http-app';
import { parseRole, ProcessRole, servesHttp } from './core/bootstrap/role';
import { startWorkerHealthServer } from './core/bootstrap/worker-health-server';
import { InvalidConfigError, loadConfig } from './core/config/load-config';
import type { AppConfig } from './core/config/config.schema';
import { runMigrations } from './core/database/migrate';
import { HealthService } from './core/health/health.service';
import { MetricsScraper } from './core/metrics/metrics-scraper';
import { DemoAccountSeeder } from './modules/admin/demo-account.seeder';

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

interface Running {
  app: INestApplicationContext;
  healthServer?: Server;
}

function readConfig(): AppConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof InvalidConfigError) {
      process.stderr.write(`${error.message}\nThe service did not start. Fix the settings above (see .env.example).\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const role = parseRole(process.argv[2] ?? config.ROLE);
  const logger = pino({ level: config.LOG_LEVEL, base: { role, pid: process.pid } });
  const devServices: StartedService[] = [];
  let running: Running | undefined;
  let supervisor: ApiSupervisor | undefined;

  const stop = async (reason: string, exitCode: number): Promise<never> => {
    logger.info({ reason }, 'shutting down');
    // Past the grace period, exit anyway: unfinished queue work is retried by another worker.
    setTimeout(() => {
      logger.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_SECONDS * 1000).unref();
    try {
      if (supervisor) exitCode = Math.max(exitCode, await supervisor.stop('SIGTERM'));
      running?.healthServer?.close();
      await running?.app.close();
      for (const service of devServices.reverse()) await service.stop();
      logger.info({ exitCode }, 'shutdown complete');
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown');
      exitCode = 1;
    }
    process.exit(exitCode);
  };
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void stop(signal, 0);
    });
  }

  try {
    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      if (role !== ProcessRole.All) throw new Error(`DATABASE_URL is required for the ${role} role`);
      const postgres = await startEmbeddedPostgres(config.DATA_DIR, config.EMBEDDED_POSTGRES_PORT, logger);
      devServices.push(postgres);
      databaseUrl = postgres.url;
    }
    let redisUrl = config.REDIS_URL ?? DEFAULT_REDIS_URL;
    if (!config.REDIS_URL && role === ProcessRole.All) {
      const redis = await ensureLocalRedis(logger);
      devServices.push(redis);
      redisUrl = redis.url;
    }
    if (config.DATABASE_MIGRATE_ON_START) {
      const applied = await runMigrations({ url: databaseUrl, poolSize: 1 });
      if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    }
    if (role === ProcessRole.Api && config.API_PROCESSES > 1 && cluster.isPrimary) {
      supervisor = superviseApiProcesses(config.API_PROCESSES, logger);
      return;
    }
    const devAdmin =
      role === ProcessRole.All && !config.ADMIN_TOKEN ? await developmentAdminToken(config.DATA_DIR) : null;
    const effectiveConfig: AppConfig = { ...config, ADMIN_TOKEN: config.ADMIN_TOKEN ?? devAdmin?.token };
    const rootModule = AppModule.forRole(role, effectiveConfig, { databaseUrl, redisUrl });

    if (servesHttp(role)) {
      const app = await NestFactory.create(rootModule, { bodyParser: false, bufferLogs: true });
      running = { app };
      configureHttpApp(app);
      await app.listen(config.PORT);
      logger.info({ port: config.PORT }, 'API listening');
    } else {
      const app = await NestFactory.createApplicationContext(rootModule, { bufferLogs: true });
      running = { app };
      app.useLogger(app.get(NestPinoLogger));
      await app.init();
      running.healthServer = await startWorkerHealthServer(
        config.WORKER_HEALTH_PORT,
        app.get(HealthService),
        app.get(MetricsScraper),
      );
      logger.info({ healthPort: config.WORKER_HEALTH_PORT }, 'worker started');
    }

    if (role === ProcessRole.All) {
      const demo = await running.app.get(DemoAccountSeeder).seedIfEmpty(config.DEMO_ACCOUNT_CREDITS);
      printDevelopmentCredentials(config.PUBLIC_BASE_URL, devAdmin, demo);
    }
  } catch (error) {
    if (error instanceof EmbeddedDatabaseError) {
      // A reason and a way out, not a stack trace: the embedded database is a convenience.
      process.stderr.write(
        `The embedded PostgreSQL could not start (${error.message}); set DATABASE_URL to a PostgreSQL ` +
          'you run (postgres://user:password@host:5432/database) and start again.\n',
      );
    } else {
      logger.fatal({ err: error }, 'start-up failed');
    }
    await stop('start-up failed', 1);
  }
}

void main();
