import { consoleContentSecurityPolicy, consoleImageSources } from './console-static';

/** Hosts the service may fetch sources from: never sources of the console's images. */
const ALLOWLIST = ['10.0.0.0/8', 'images.internal', '192.168.1.20', 'fd00::1'];

const config = {
  PUBLIC_BASE_URL: 'https://api.example.com/base',
  RESULT_URLS: 'api' as const,
  S3_ENDPOINT: 'https://s3.example.com',
  OUTBOUND_ALLOWLIST: ALLOWLIST,
};

describe('the console policy', () => {
  it('allows scripts, styles and requests from the console only, and no inline code', () => {
    const policy = consoleContentSecurityPolicy(config);
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self';");
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/unsafe/);
  });

  it('loads images from the result URLs’ origin only: no https: wildcard, no customer host', () => {
    const sources = consoleImageSources(config);
    expect(sources).toEqual(["'self'", 'blob:', 'data:', 'https://api.example.com']);
    expect(sources).not.toContain('https:');
    for (const host of ALLOWLIST) expect(sources.join(' ')).not.toContain(host);
    expect(consoleContentSecurityPolicy(config)).toContain("img-src 'self' blob: data: https://api.example.com;");
  });

  it('adds the bucket’s origin when result URLs are presigned', () => {
    expect(consoleImageSources({ ...config, RESULT_URLS: 'presigned' })).toEqual([
      "'self'",
      'blob:',
      'data:',
      'https://api.example.com',
      'https://s3.example.com',
    ]);
  });
});
