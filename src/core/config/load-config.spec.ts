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

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['CAPACITY_ACCOUNT_SHARE', '2'],
    ['DATABASE_URL', 'mysql://x'],
    ['OUTBOUND_ALLOWLIST', 'not a host/99'],
    ['WEBHOOK_RETRY_SCHEDULE', '1,x'],
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
    });
    expect(config).toMatchObject({
      PORT: 8080,
      CAPACITY_ACCOUNT_SHARE: 0.5,
      DATABASE_URL: 'postgres://user@db:5432/app',
      OUTBOUND_ALLOWLIST: ['internal.example', '10.0.0.0/8', 'fd00::/8', '192.168.1.5'],
      WEBHOOK_RETRY_SCHEDULE: [1, 2, 3],
    });
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

  it('reads TRUST_PROXY as Express does: a flag, a hop count or a list of addresses', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback']);
    expect(configError({ TRUST_PROXY: 'my-proxy.example' }).message).toContain('TRUST_PROXY');
  });
});
