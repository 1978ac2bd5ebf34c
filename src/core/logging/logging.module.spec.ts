import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pinoHttp } from 'pino-http';
import type { ServiceSecretsRepository } from '../storage/service-secrets.repository';
import { ResultUrlSigner } from '../storage/result-url.signer';
import { httpLoggerOptions, serializeRequest } from './logging.module';
import { redactUrl } from './redact-url';

const KEY = 'results/0b6f3c1e-0e0c-4a3e-9f1a-2c3d4e5f6a7b/5a1b2c3d.png';
const noDatabase = {} as ServiceSecretsRepository;

/** A signed URL as the API hands it out, reduced to what arrives as `req.url`. */
function signedPathAndQuery(): { pathAndQuery: string; signature: string } {
  const signer = new ResultUrlSigner(
    {
      PUBLIC_BASE_URL: 'https://images.example.com',
      RESULT_URL_TTL_SECONDS: 604_800,
      RESULT_URL_SECRET: 'x'.repeat(32),
    },
    noDatabase,
  );
  const url = new URL(signer.sign(KEY));
  return { pathAndQuery: `${url.pathname}${url.search}`, signature: url.searchParams.get('signature') ?? '' };
}

describe('request logging', () => {
  describe('the request line of pino-http, as the API configures it', () => {
    let server: Server;
    let lines: string[];

    beforeEach(async () => {
      lines = [];
      const destination = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(
            ...chunk
              .toString('utf8')
              .split('\n')
              .filter((line) => line.length > 0),
          );
          done();
        },
      });
      const logger = pinoHttp(httpLoggerOptions({ LOG_LEVEL: 'info' }), destination);
      server = createServer((req, res) => {
        logger(req, res);
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });

    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('logs the path of a signed file URL but never its signature', async () => {
      const { pathAndQuery, signature } = signedPathAndQuery();
      expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const { port } = server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}${pathAndQuery}`);
      await new Promise((resolve) => setImmediate(resolve));

      const output = lines.join('\n');
      expect(lines).toHaveLength(1);
      expect(output).not.toContain(signature);
      const logged = JSON.parse(lines[0]) as { req: { url: string; method: string } };
      expect(logged.req.method).toBe('GET');
      expect(logged.req.url).toMatch(new RegExp(`^/api/v1/files/${KEY}\\?expires=\\d+&signature=\\[redacted\\]$`));
    });
  });

  describe(serializeRequest.name, () => {
    it('keeps the request id and method and redacts the URL', () => {
      expect(
        serializeRequest({ id: 'req-1', method: 'GET', url: '/api/v1/files/a.png?expires=1&signature=abc' }),
      ).toEqual({
        request_id: 'req-1',
        method: 'GET',
        url: '/api/v1/files/a.png?expires=1&signature=[redacted]',
      });
    });
  });

  describe(redactUrl.name, () => {
    it.each([
      ['/api/v1/jobs', '/api/v1/jobs'],
      ['/api/v1/jobs?limit=5&cursor=abc', '/api/v1/jobs?limit=5&cursor=abc'],
      ['/f?signature=abc', '/f?signature=[redacted]'],
      ['/f?SIGNATURE=abc&expires=1', '/f?SIGNATURE=[redacted]&expires=1'],
      ['/f?sig%6Eature=abc', '/f?sig%6Eature=[redacted]'],
      ['/f?signature=a&signature=b', '/f?signature=[redacted]&signature=[redacted]'],
      ['/f?signature', '/f?signature=[redacted]'],
      ['/f?token=t&access_token=u&api_key=k&x', '/f?token=[redacted]&access_token=[redacted]&api_key=[redacted]&x'],
      [
        '/s3?X-Amz-Credential=c&X-Amz-Signature=s&X-Amz-Expires=60',
        '/s3?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Expires=60',
      ],
      ['/f?%E0%A4%A=1&signature=abc#frag', '/f?%E0%A4%A=1&signature=[redacted]#frag'],
      ['/f?signatures=keep', '/f?signatures=keep'],
    ])('%s -> %s', (url, expected) => {
      expect(redactUrl(url)).toBe(expected);
    });
  });
});
