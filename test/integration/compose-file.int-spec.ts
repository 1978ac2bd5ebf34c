import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/core/config/load-config';

/**
 * docker-compose.yml cannot be started here (no Docker engine), so it is read as Compose reads
 * it: YAML with merge keys, `${NAME:-default}` interpolated from an environment. Every app
 * service's environment must pass the service's own configuration check, and the workers
 * together must consume every queue.
 */
const ROOT = join(__dirname, '..', '..');

/** Compose's interpolation: `$$` is a dollar, `${NAME}`, `${NAME:-default}` and `${NAME:?message}` read `env`. */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g,
    (whole, name: string | undefined, kind: string | undefined, operand: string | undefined) => {
      if (whole === '$$') return '$';
      const value = env[name as string];
      if (value) return value;
      if (kind === '?') throw new Error(`${name} is required: ${operand}`);
      return kind === '-' ? (operand ?? '') : '';
    },
  );
}

interface ComposeService {
  command?: string[];
  stop_signal?: string;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
  environment?: Record<string, string | number | boolean>;
  profiles?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  configs?: Record<string, { content?: string }>;
}

function composeFile(env: Record<string, string>): ComposeFile {
  return parse(interpolate(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), env), {
    merge: true,
  }) as ComposeFile;
}

const SECONDS_PER_UNIT: Record<string, number> = { h: 3600, m: 60, s: 1 };

/** Compose's duration (`1m30s`, `20s`) in seconds. */
function durationSeconds(duration: string): number {
  const parts = [...duration.matchAll(/(\d+)([hms])/g)];
  expect(parts.map(([part]) => part).join('')).toBe(duration);
  return parts.reduce((total, [, value, unit]) => total + Number(value) * SECONDS_PER_UNIT[unit], 0);
}

const stringEnvironment = (service: ComposeService) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([key, value]) => [key, String(value)]));

describe('docker-compose.yml', () => {
  const compose = composeFile({ ADMIN_TOKEN: 'compose-test-admin-token-0123456789' });
  const appServices = Object.entries(compose.services).filter(([, service]) => service.command?.[1] === 'dist/main.js');

  it('refuses to start the API without an ADMIN_TOKEN', () => {
    expect(() => composeFile({})).toThrow(/ADMIN_TOKEN is required/);
  });

  it('gives the API and both workers settings the service accepts, results in the bucket and no shared folder', () => {
    expect(appServices.map(([name]) => name).sort()).toEqual(['api', 'worker', 'worker-cutout']);
    for (const [, service] of appServices) {
      const config = loadConfig(stringEnvironment(service));
      expect(config).toMatchObject({
        STORAGE_DRIVER: 's3',
        S3_ENDPOINT: 'http://minio:9000',
        S3_FORCE_PATH_STYLE: true,
      });
      expect(service.volumes ?? []).toEqual([]);
      expect(Object.keys(service.depends_on ?? {})).toEqual(
        expect.arrayContaining(['postgres', 'redis', 'minio-bucket']),
      );
    }
  });

  it('splits the queues between the two worker deployments, each consumed by exactly one', () => {
    const queuesOf = (name: string) => loadConfig(stringEnvironment(compose.services[name])).WORKER_QUEUES;
    const all = loadConfig({}).WORKER_QUEUES;
    expect(queuesOf('worker-cutout')).toEqual(['background-removal']);
    expect([...queuesOf('worker'), ...queuesOf('worker-cutout')].sort()).toEqual([...all].sort());
  });

  it(
    'scrapes the API with the admin token and every worker ' + 'replica, with alert rules and a dashboard that exist',
    () => {
      const prometheus = parse(compose.configs?.['prometheus-config']?.content ?? '') as {
        rule_files: string[];
        scrape_configs: Array<{
          job_name: string;
          authorization?: { credentials: string };
          static_configs?: Array<{ targets: string[] }>;
          dns_sd_configs?: Array<{ names: string[]; port: number }>;
        }>;
      };
      const [api, workers] = prometheus.scrape_configs;
      expect(api.authorization?.credentials).toBe('compose-test-admin-token-0123456789');
      expect(api.static_configs?.[0].targets).toEqual(['api:3000']);
      expect(workers.dns_sd_configs?.[0]).toEqual({ names: ['worker', 'worker-cutout'], type: 'A', port: 3001 });
      const mounted = (service: string) =>
        (compose.services[service].volumes ?? [])
          .map((volume) => volume.split(':')[0])
          .filter((path) => path.startsWith('./'));
      for (const path of [...mounted('prometheus'), ...mounted('grafana')])
        expect(existsSync(join(ROOT, path))).toBe(true);
    },
  );

  it('stops every app service with SIGTERM and waits longer than its grace period before SIGKILL', () => {
    for (const [name, service] of appServices) {
      const config = loadConfig(stringEnvironment(service));
      expect({ name, signal: service.stop_signal }).toEqual({ name, signal: 'SIGTERM' });
      // The process exits by itself within SHUTDOWN_GRACE_SECONDS; Compose must not cut it short.
      expect(durationSeconds(service.stop_grace_period ?? '10s')).toBeGreaterThan(config.SHUTDOWN_GRACE_SECONDS);
      // Readiness, not liveness: 503 when a dependency is down and while the process drains.
      expect(service.healthcheck?.test.join(' ')).toMatch(/path:'\/health\/ready'/);
    }
    const api = loadConfig(stringEnvironment(compose.services.api));
    expect(api.SHUTDOWN_DRAIN_SECONDS).toBeGreaterThan(0);
    // The API's whole stop fits in 20 s: drain, then requests in flight and closing, within the grace.
    expect(api.SHUTDOWN_GRACE_SECONDS).toBeLessThan(20);
  });
});
