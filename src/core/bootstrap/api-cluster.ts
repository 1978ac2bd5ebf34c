import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { serveClusterMetrics } from '../metrics/cluster-metrics';

/** A crashed process is replaced after this pause, so a process that dies at start cannot spin. */
const RESTART_DELAY_MS = 1000;

export interface ApiSupervisor {
  /**
   * Passes the signal to every live process, each of which drains as a single API process
   * does, and resolves with 0 once all have exited cleanly. Called again (an operator's
   * second signal), it passes that one on too and returns the same promise.
   */
  stop(signal: NodeJS.Signals): Promise<number>;
}

/**
 * Runs the API role as `count` processes sharing one port (Node's cluster module), so one
 * container or host uses several cores. The primary only supervises: it applied the
 * migrations before forking, and replaces a process that dies unexpectedly. Each process is
 * a complete, stateless API instance, exactly as separate instances behind a load balancer,
 * except for `/metrics`: whichever process a scrape reaches answers for all of them, through
 * the primary (see cluster-metrics.ts).
 */
export function superviseApiProcesses(count: number, logger: Logger): ApiSupervisor {
  let stopping = false;
  const fork = (): Worker => cluster.fork({ API_PROCESSES: '1', DATABASE_MIGRATE_ON_START: 'false' });

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ pid: worker.process.pid, code, signal }, 'API process exited unexpectedly; replacing it');
    setTimeout(() => {
      if (!stopping) fork();
    }, RESTART_DELAY_MS).unref();
  });
  serveClusterMetrics(logger);
  for (let i = 0; i < count; i++) fork();
  logger.info({ processes: count }, 'API processes started');

  let allExited: Promise<number> | undefined;
  return {
    stop(signal) {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
      allExited ??= Promise.all(
        workers.map(
          (worker) =>
            new Promise<number>((exited) => {
              if (worker.isDead()) return exited(worker.process.exitCode ?? 0);
              worker.process.once('exit', (code) => exited(code ?? 1));
            }),
        ),
      ).then((codes) => (codes.every((code) => code === 0) ? 0 : 1));
      for (const worker of workers) if (!worker.isDead()) worker.process.kill(signal);
      return allExited;
    },
  };
}
