import { availableParallelism } from 'node:os';
import { InvalidConfigError, loadConfig } from './load-config';

/** Runs loadConfig and returns the InvalidConfigError it throws, failing if it does not throw one. */
function configError(env: NodeJS.ProcessEnv): InvalidConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof InvalidConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe(loadConfig.name, () => {
  it('applies the defaults of contract section 14 to an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      PUBLIC_BASE_URL: 'http://localhost:3000',
      STORAGE_DIR: './data/results',
      OUTBOUND_ALLOWLIST: [],
      WEBHOOK_RETRY_SCHEDULE: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
      LIMIT_CREATES_PER_HOUR_KEY: 5,
      LIMIT_CREATES_PER_HOUR_ACCOUNT: 10,
      LIMIT_CREATES_PER_HOUR_IP: 50,
      LIMIT_POLLS_PER_HOUR_KEY: 120,
      LIMIT_POLLS_PER_HOUR_ACCOUNT: 240,
      LIMIT_POLLS_PER_HOUR_IP: 1200,
      LIMIT_ACTIVE_JOBS_PER_KEY: 1,
      LIMIT_ACTIVE_JOBS_PER_ACCOUNT: 2,
      CAPACITY_MAX_PENDING_RESULTS: 200,
      CAPACITY_ACCOUNT_SHARE: 0.25,
    });
    expect(config.ADMIN_TOKEN).toBeUndefined();
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('sizes heavy work to the cores: one heavy result per core and queue, one engine thread per core', () => {
    const cores = availableParallelism();
    expect(loadConfig({})).toMatchObject({
      WORKER_CONCURRENCY_BACKGROUND_REMOVAL: cores,
      WORKER_CONCURRENCY_PROCESSING: cores,
      ENGINE_THREADS: cores,
      ENGINE_THREAD_NICE: 5,
      // Cheap work is not admitted behind pixel work: its own queues keep their own slots.
      WORKER_CONCURRENCY_SANDBOX: 16,
      WORKER_CONCURRENCY_WEBHOOKS: 64,
    });
    expect(loadConfig({ ENGINE_THREADS: '0' }).ENGINE_THREADS).toBe(0);
    expect(() => loadConfig({ ENGINE_THREADS: '-1' })).toThrow(InvalidConfigError);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['CAPACITY_ACCOUNT_SHARE', '2'],
    ['DATABASE_URL', 'mysql://x'],
    ['OUTBOUND_ALLOWLIST', 'not a host/99'],
    ['WEBHOOK_RETRY_SCHEDULE', '1,x'],
    ['SEGMENTER_MODEL', 'a model with spaces'],
  ])('refuses %s=%s with an InvalidConfigError naming the setting', (name, value) => {
    const error = configError({ [name]: value });
    expect(error.message).toContain(name);
    expect(error.problems.length).toBeGreaterThan(0);
    expect(error.problems.every((problem) => problem.startsWith(name))).toBe(true);
  });

  it('reports every invalid setting at once', () => {
    const error = configError({ PORT: 'abc', CAPACITY_ACCOUNT_SHARE: '2' });
    expect(error.message).toContain('PORT');
    expect(error.message).toContain('CAPACITY_ACCOUNT_SHARE');
  });

  it('accepts valid values for the settings it refuses above', () => {
    const config = loadConfig({
      PORT: '8080',
      CAPACITY_ACCOUNT_SHARE: '0.5',
      DATABASE_URL: 'postgres://user@db:5432/app',
      OUTBOUND_ALLOWLIST: 'internal.example, 10.0.0.0/8 ,fd00::/8,192.168.1.5',
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
      SEGMENTER_MODEL: 'birefnet-general@2024-10',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      CAPACITY_ACCOUNT_SHARE: 0.5,
      DATABASE_URL: 'postgres://user@db:5432/app',
      OUTBOUND_ALLOWLIST: ['internal.example', '10.0.0.0/8', 'fd00::/8', '192.168.1.5'],
      WEBHOOK_RETRY_SCHEDULE: [1, 2, 3],
      SEGMENTER_MODEL: 'birefnet-general@2024-10',
    });
    expect(loadConfig({}).SEGMENTER_MODEL).toBe('remote');
  });

  it('defaults PUBLIC_BASE_URL to http://localhost:$PORT', () => {
    expect(loadConfig({ PORT: '4567' }).PUBLIC_BASE_URL).toBe('http://localhost:4567');
  });

  it('keeps an explicit PUBLIC_BASE_URL, without a trailing slash', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://images.example.com/' }).PUBLIC_BASE_URL).toBe(
      'https://images.example.com',
    );
  });

  it('treats an empty string as unset', () => {
    const config = loadConfig({
      PORT: '',
      DATABASE_URL: '',
      ADMIN_TOKEN: '',
      PUBLIC_BASE_URL: '',
      CAPACITY_ACCOUNT_SHARE: '',
      WEBHOOK_RETRY_SCHEDULE: '',
    });
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.ADMIN_TOKEN).toBeUndefined();
    expect(config.PUBLIC_BASE_URL).toBe('http://localhost:3000');
    expect(config.CAPACITY_ACCOUNT_SHARE).toBe(0.25);
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
  });

  it('reads TRUST_PROXY as Express does: false, a hop count or a list of addresses', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback']);
    expect(loadConfig({ TRUST_PROXY: '192.0.2.10,2001:db8::/32' }).TRUST_PROXY).toEqual([
      '192.0.2.10',
      '2001:db8::/32',
    ]);
    for (const value of ['my-proxy.example', '10.0.0.0/33', '10.0.0.0/8/1', '10.0.0.0/abc']) {
      expect(configError({ TRUST_PROXY: value }).message).toContain('TRUST_PROXY');
    }
  });

  it(
    'refuses TRUST_PROXY=true, which lets every client choose its own address, ' +
      'asking for a hop count or addresses',
    () => {
      const error = configError({ TRUST_PROXY: 'true' });
      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(/^TRUST_PROXY: true would trust every entry of X-Forwarded-For/);
      expect(error.problems[0]).toContain('hop count');
      expect(error.problems[0]).toContain('addresses or CIDRs');
      // A range of every address is the same thing.
      for (const everything of ['0.0.0.0/0', '::/0', '10.0.0.1, 0.0.0.0/0']) {
        expect(configError({ TRUST_PROXY: everything }).problems[0]).toMatch(/holds every address.*hop count/);
      }
    },
  );

  it('takes METRICS_TOKEN of 16 or more characters, other than ADMIN_TOKEN', () => {
    expect(loadConfig({ METRICS_TOKEN: 'metrics-token-0123456789' }).METRICS_TOKEN).toBe('metrics-token-0123456789');
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(configError({ METRICS_TOKEN: 'short' }).message).toContain('METRICS_TOKEN');
    const same = 'one-token-for-both-0123456789';
    expect(configError({ ADMIN_TOKEN: same, METRICS_TOKEN: same }).problems).toEqual([
      expect.stringMatching(/^METRICS_TOKEN: must differ from ADMIN_TOKEN/),
    ]);
  });

  describe('result storage', () => {
    const s3 = { STORAGE_DRIVER: 's3', S3_BUCKET: 'results' };

    it('defaults to local disk, the API’s signed URLs and 30 days of retention', () => {
      expect(loadConfig({})).toMatchObject({
        STORAGE_DRIVER: 'local',
        RESULT_URLS: 'api',
        RESULT_RETENTION_DAYS: 30,
        S3_REGION: 'us-east-1',
        S3_FORCE_PATH_STYLE: false,
      });
    });

    it('accepts an S3 bucket with presigned URLs, with or without credentials', () => {
      expect(loadConfig({ ...s3, RESULT_URLS: 'presigned' })).toMatchObject({
        STORAGE_DRIVER: 's3',
        RESULT_URLS: 'presigned',
      });
      const config = loadConfig({
        ...s3,
        S3_ENDPOINT: 'http://minio:9000',
        S3_ACCESS_KEY_ID: 'key-id',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_FORCE_PATH_STYLE: 'true',
      });
      expect(config).toMatchObject({ S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: true });
    });

    it('refuses STORAGE_DRIVER=s3 without S3_BUCKET', () => {
      const error = configError({ STORAGE_DRIVER: 's3' });
      expect(error.problems).toEqual([expect.stringMatching(/^S3_BUCKET.*required when STORAGE_DRIVER is s3/)]);
    });

    it('refuses presigned URLs that would live longer than the 7 days S3 allows', () => {
      const error = configError({ ...s3, RESULT_URLS: 'presigned', RESULT_URL_TTL_SECONDS: String(7 * 24 * 3600 + 1) });
      expect(error.problems).toEqual([expect.stringMatching(/^RESULT_URL_TTL_SECONDS.*at most 604800/)]);
      expect(
        loadConfig({ ...s3, RESULT_URLS: 'presigned', RESULT_URL_TTL_SECONDS: String(7 * 24 * 3600) })
          .RESULT_URL_TTL_SECONDS,
      ).toBe(604800);
    });

    it('refuses RESULT_URLS=presigned without STORAGE_DRIVER=s3', () => {
      const error = configError({ RESULT_URLS: 'presigned', S3_BUCKET: 'results' });
      expect(error.problems).toEqual([expect.stringMatching(/^RESULT_URLS.*presigned needs STORAGE_DRIVER=s3/)]);
    });

    it.each([
      ['only S3_ACCESS_KEY_ID', { S3_ACCESS_KEY_ID: 'key-id' }],
      ['only S3_SECRET_ACCESS_KEY', { S3_SECRET_ACCESS_KEY: 'secret' }],
    ])('refuses half the credentials: %s', (_case, credentials) => {
      const error = configError({ ...s3, ...credentials });
      expect(error.problems).toEqual([expect.stringMatching(/S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together/)]);
    });

    it.each([
      ['STORAGE_DRIVER', 'gcs'],
      ['RESULT_URLS', 'cdn'],
      ['RESULT_RETENTION_DAYS', '0'],
      ['S3_ENDPOINT', 'ftp://minio:9000'],
    ])('refuses %s=%s', (name, value) => {
      const error = configError({ ...s3, [name]: value });
      expect(error.problems.every((problem) => problem.startsWith(name))).toBe(true);
    });
  });

  describe('shutdown', () => {
    it('drains for 5 s within a grace period of 15 s by default, so the whole stop fits in 20 s', () => {
      const config = loadConfig({});
      expect(config.SHUTDOWN_DRAIN_SECONDS).toBe(5);
      expect(config.SHUTDOWN_GRACE_SECONDS).toBe(15);
    });

    it('drains for a third of a grace period shorter than 15 s unless told otherwise, as a worker may have', () => {
      expect(loadConfig({ SHUTDOWN_GRACE_SECONDS: '4' }).SHUTDOWN_DRAIN_SECONDS).toBe(1);
      expect(loadConfig({ SHUTDOWN_GRACE_SECONDS: '2' }).SHUTDOWN_DRAIN_SECONDS).toBe(0);
      expect(loadConfig({ SHUTDOWN_GRACE_SECONDS: '60' }).SHUTDOWN_DRAIN_SECONDS).toBe(5);
    });

    it('accepts no drain at all, and a drain shorter than the grace period', () => {
      expect(loadConfig({ SHUTDOWN_DRAIN_SECONDS: '0' }).SHUTDOWN_DRAIN_SECONDS).toBe(0);
      expect(loadConfig({ SHUTDOWN_DRAIN_SECONDS: '29', SHUTDOWN_GRACE_SECONDS: '30' })).toMatchObject({
        SHUTDOWN_DRAIN_SECONDS: 29,
        SHUTDOWN_GRACE_SECONDS: 30,
      });
    });

    it.each([
      ['as long as the grace period', { SHUTDOWN_DRAIN_SECONDS: '15' }],
      ['longer than a shortened grace period', { SHUTDOWN_DRAIN_SECONDS: '5', SHUTDOWN_GRACE_SECONDS: '3' }],
    ])('refuses a drain %s: the grace period includes it', (_case, env) => {
      const error = configError(env);
      expect(error.problems).toEqual([
        expect.stringMatching(/^SHUTDOWN_DRAIN_SECONDS: must be less than SHUTDOWN_GRACE_SECONDS/),
      ]);
    });

    it.each([
      ['SHUTDOWN_DRAIN_SECONDS', '-1'],
      ['SHUTDOWN_DRAIN_SECONDS', 'soon'],
      ['SHUTDOWN_GRACE_SECONDS', '0'],
    ])('refuses %s=%s', (name, value) => {
      expect(configError({ [name]: value }).problems.some((problem) => problem.startsWith(name))).toBe(true);
    });
  });
});
