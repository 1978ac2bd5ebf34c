// First: on an unsupported Node.js the process stops here, before any other module loads.
import './core/bootstrap/supported-node';
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
import { HttpDrain } from './core/bootstrap/http-drain';
import { parseRole, ProcessRole, servesHttp } from './core/bootstrap/role';
import { StopRequest, StopSignals } from './core/bootstrap/stop-signals';
import { startWorkerHealthServer } from './core/bootstrap/worker-health-server';
import { InvalidConfigError, loadConfig } from './core/config/load-config';
import type { AppConfig } from './core/config/config.schema';
import { runMigrations } from './core/database/migrate';
import { serializeError } from './core/logging/error-serializer';
import { HealthService } from './core/health/health.service';
import { MetricsScraper } from './core/metrics/metrics-scraper';
import { DemoAccountSeeder } from './modules/admin/demo-account.seeder';

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** Exit code of a shutdown cut short: by the grace period, a second signal or an error. */
const EXIT_FORCED = 1;

interface Running {
  app: INestApplicationContext;
  /** The API's server, drained before the application closes. */
  httpDrain?: HttpDrain;
  /** A worker's health port: it keeps answering (readiness 503) until the application has closed. */
  healthServer?: Server;
}

/**
 * The API's side of a shutdown: serve on for the drain delay with `Connection: close` while
 * readiness says 503 and load balancers take this process out, then stop accepting and finish
 * what is in flight. The application (its pools, and in role `all` the worker) closes after.
 */
async function drainHttp(drain: HttpDrain, drainSeconds: number, logger: pino.Logger): Promise<void> {
  drain.begin();
  logger.info({ drainSeconds }, 'draining: readiness answers 503 and every response closes its connection');
  await new Promise((elapsed) => setTimeout(elapsed, drainSeconds * 1000));
  const finished = drain.stopAccepting();
  logger.info({ requestsInFlight: drain.requestsInFlight }, 'listener closed; finishing the requests in flight');
  await finished;
  logger.info('requests in flight finished');
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
  // The same `err` serializer as the app's loggers: a failed migration or start-up query logged
  // here must not write its parameters either.
  const logger = pino({
    level: config.LOG_LEVEL,
    base: { role, pid: process.pid },
    serializers: { err: serializeError },
  });
  logger.info({ node: process.version }, 'starting');
  const devServices: StartedService[] = [];
  let running: Running | undefined;
  let supervisor: ApiSupervisor | undefined;

  /** `signal`: the signal that asked for the stop (then the API drains first), or none after a failed start. */
  const stop = async (reason: string, exitCode: number, signal?: NodeJS.Signals): Promise<never> => {
    running?.app.get(HealthService).startDraining();
    logger.info(
      { reason, drainSeconds: config.SHUTDOWN_DRAIN_SECONDS, graceSeconds: config.SHUTDOWN_GRACE_SECONDS },
      'shutting down',
    );
    // Past the grace period, exit anyway: unfinished queue work is retried by another worker.
    setTimeout(() => {
      logger.error(
        { graceSeconds: config.SHUTDOWN_GRACE_SECONDS, requestsInFlight: running?.httpDrain?.requestsInFlight },
        'shutdown grace period exceeded; exiting',
      );
      process.exit(EXIT_FORCED);
    }, config.SHUTDOWN_GRACE_SECONDS * 1000).unref();
    try {
      if (supervisor) exitCode = Math.max(exitCode, await supervisor.stop(signal ?? 'SIGTERM'));
      if (signal && running?.httpDrain) await drainHttp(running.httpDrain, config.SHUTDOWN_DRAIN_SECONDS, logger);
      await running?.app.close();
      running?.healthServer?.close();
      for (const service of devServices.reverse()) await service.stop();
      logger.info({ exitCode }, 'shutdown complete');
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown');
      exitCode = EXIT_FORCED;
    }
    process.exit(exitCode);
  };
  const stopSignals = new StopSignals();
  // SIGHUP too: the terminal of an `npm start` closed. Left to its default, it would end the
  // process at once and leave the embedded PostgreSQL running.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      switch (stopSignals.received()) {
        case StopRequest.Graceful:
          void stop(signal, 0, signal);
          return;
        case StopRequest.Repeat:
          logger.debug({ signal }, 'the stop signal again; already shutting down');
          return;
        case StopRequest.Immediate:
          logger.warn({ signal }, 'second stop signal: exiting now, without finishing the shutdown');
          // API processes of this primary take it as their own second signal.
          void supervisor?.stop(signal);
          process.exit(EXIT_FORCED);
      }
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
      running = { app, httpDrain: new HttpDrain(app.getHttpServer() as Server) };
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
        config,
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
