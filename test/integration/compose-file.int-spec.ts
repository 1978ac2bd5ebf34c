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
  ports?: string[];
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

interface PrometheusConfig {
  rule_files: string[];
  scrape_configs: Array<{
    job_name: string;
    authorization?: { credentials: string };
    static_configs?: Array<{ targets: string[] }>;
    dns_sd_configs?: Array<{ names: string[]; port: number }>;
  }>;
}

const prometheusConfigOf = (compose: ComposeFile) =>
  parse(compose.configs?.['prometheus-config']?.content ?? '') as PrometheusConfig;

const ADMIN_TOKEN = 'compose-test-admin-token-0123456789';
const METRICS_TOKEN = 'compose-test-metrics-token-0123456789';

describe('docker-compose.yml', () => {
  const compose = composeFile({ ADMIN_TOKEN, METRICS_TOKEN });
  const appServices = Object.entries(compose.services).filter(([, service]) => service.command?.[1] === 'dist/main.js');
  const monitoringServices = Object.entries(compose.services).filter(([, service]) =>
    service.profiles?.includes('monitoring'),
  );

  it('refuses to start the API without an ADMIN_TOKEN', () => {
    expect(() => composeFile({})).toThrow(/ADMIN_TOKEN is required/);
  });

  it('starts without METRICS_TOKEN, which only the monitoring profile needs, and the workers then ask for none', () => {
    // Compose interpolates the whole file whatever the profiles, so a required METRICS_TOKEN would stop every start.
    const withoutMonitoring = composeFile({ ADMIN_TOKEN });
    for (const name of ['api', 'worker', 'worker-cutout']) {
      expect(loadConfig(stringEnvironment(withoutMonitoring.services[name])).METRICS_TOKEN).toBeUndefined();
    }
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
    'scrapes the API and every worker replica with METRICS_TOKEN, never the admin token, ' +
      'with alert rules and a dashboard that exist',
    () => {
      const prometheus = prometheusConfigOf(compose);
      const [api, workers] = prometheus.scrape_configs;
      expect(api.authorization?.credentials).toBe(METRICS_TOKEN);
      expect(api.static_configs?.[0].targets).toEqual(['api:3000']);
      expect(workers.authorization?.credentials).toBe(METRICS_TOKEN);
      expect(workers.dns_sd_configs?.[0]).toEqual({ names: ['worker', 'worker-cutout'], type: 'A', port: 3001 });
      expect(compose.configs?.['prometheus-config']?.content).not.toContain(ADMIN_TOKEN);
      const mounted = (service: string) =>
        (compose.services[service].volumes ?? [])
          .map((volume) => volume.split(':')[0])
          .filter((path) => path.startsWith('./'));
      for (const path of [...mounted('prometheus'), ...mounted('grafana')])
        expect(existsSync(join(ROOT, path))).toBe(true);
    },
  );

  it('gives the API and both workers METRICS_TOKEN, so the API reads it and the workers ask for it on /metrics', () => {
    for (const [name, service] of appServices) {
      expect({ name, token: loadConfig(stringEnvironment(service)).METRICS_TOKEN }).toEqual({
        name,
        token: METRICS_TOKEN,
      });
    }
    // The admin token stays with the API alone.
    expect(
      appServices.filter(([, service]) => 'ADMIN_TOKEN' in (service.environment ?? {})).map(([name]) => name),
    ).toEqual(['api']);
  });

  it('publishes Prometheus and Grafana on the loopback interface only', () => {
    expect(monitoringServices.map(([name]) => name).sort()).toEqual(['grafana', 'prometheus']);
    for (const [name, service] of monitoringServices) {
      expect(service.ports?.length).toBeGreaterThan(0);
      for (const port of service.ports ?? [])
        expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^127\.0\.0\.1:\d+:\d+$/) });
    }
  });

  it(
    'runs Grafana with no account to take over: no admin created, ' + 'no login form or basic auth, anonymous Viewers',
    () => {
      const grafana = stringEnvironment(compose.services.grafana);
      expect(grafana).toMatchObject({
        GF_SECURITY_DISABLE_INITIAL_ADMIN_CREATION: 'true',
        GF_AUTH_DISABLE_LOGIN_FORM: 'true',
        GF_AUTH_BASIC_ENABLED: 'false',
        GF_USERS_ALLOW_SIGN_UP: 'false',
        GF_AUTH_ANONYMOUS_ENABLED: 'true',
        GF_AUTH_ANONYMOUS_ORG_ROLE: 'Viewer',
      });
      expect(Object.keys(grafana).filter((key) => key.startsWith('GF_SECURITY_ADMIN_'))).toEqual([]);
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
