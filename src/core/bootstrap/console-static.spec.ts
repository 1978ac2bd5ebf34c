import { consoleContentSecurityPolicy, consoleImageSources } from './console-static';

const config = {
  PUBLIC_BASE_URL: 'https://api.example.com/base',
  RESULT_URLS: 'api' as const,
  S3_ENDPOINT: 'https://s3.example.com',
  OUTBOUND_ALLOWLIST: ['10.0.0.0/8', 'images.internal', '192.168.1.20', 'fd00::1'],
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

  it('loads images from the result URLs’ origin, https originals and the allowlisted hosts', () => {
    expect(consoleImageSources(config)).toEqual([
      "'self'",
      'blob:',
      'data:',
      'https:',
      'https://api.example.com',
      'http://images.internal:*',
      'http://192.168.1.20:*',
    ]);
    expect(consoleImageSources({ ...config, RESULT_URLS: 'presigned' })).toContain('https://s3.example.com');
  });
});
