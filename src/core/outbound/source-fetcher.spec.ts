import type { LookupFunction } from 'node:net';
import { setTimeout as realSleep } from 'node:timers/promises';
import { ImageSourceServer } from '../../../test/support/image-source-server';
import { closedPort } from '../../../test/support/loopback-http';
import { OutboundWithResolver } from '../../../test/support/outbound-with-resolver';
import type { AppConfig } from '../config/config.schema';
import { loadConfig } from '../config/load-config';
import { OutboundHttps } from './outbound-https';
import { SourceFetcher, SourceFetchError, SourceFetchFailure } from './source-fetcher';

const CAP = 64 * 1024;
const IMAGE = Buffer.from('not really a png, but the fetcher does not look');

/** A resolver that answers every name with `address`, or with `code` as a DNS error. */
function fixedLookup(answer: { address: string } | { code: string }): LookupFunction {
  return (hostname, options, callback) => {
    if ('code' in answer) {
      return callback(Object.assign(new Error(`getaddrinfo ${answer.code} ${hostname}`), { code: answer.code }), '', 4);
    }
    if (options.all) callback(null, [{ address: answer.address, family: 4 }]);
    else callback(null, answer.address, 4);
  };
}

/** Lets the event loop go round `turns` times, so whatever a fired timer set off has run. */
async function loopTurns(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Rejects unless `promise` rejects with a SourceFetchError, and returns that error. */
async function failureOf(promise: Promise<unknown>): Promise<SourceFetchError> {
  const error: unknown = await promise.then(
    () => new Error('the fetch succeeded'),
    (reason: unknown) => reason,
  );
  if (error instanceof SourceFetchError) return error;
  throw error;
}

describe(SourceFetcher.name, () => {
  let sources: ImageSourceServer;
  const outbounds: OutboundHttps[] = [];

  function configWith(env: NodeJS.ProcessEnv = {}): AppConfig {
    return loadConfig({
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      SOURCE_MAX_BYTES: String(CAP),
      SOURCE_FETCH_TIMEOUT_SECONDS: '5',
      ...env,
    });
  }

  function fetcherWith(env: NodeJS.ProcessEnv = {}, lookup?: LookupFunction): SourceFetcher {
    const config = configWith(env);
    const outbound = lookup ? new OutboundWithResolver(config, lookup) : new OutboundHttps(config, {});
    outbounds.push(outbound);
    return new SourceFetcher(config, outbound);
  }

  let fetcher: SourceFetcher;

  beforeAll(async () => {
    sources = await ImageSourceServer.start(['127.0.0.1', '127.0.0.2']);
    fetcher = fetcherWith();
  });

  afterAll(async () => {
    for (const outbound of outbounds) outbound.onModuleDestroy();
    await sources.stop();
  });

  describe('answers', () => {
    it('returns the body of a 200, asking for images without compression, cookies or credentials', async () => {
      sources.serve('/shoe.png', IMAGE, { contentType: 'image/png' });
      await expect(fetcher.fetch(sources.url('/shoe.png'))).resolves.toEqual(IMAGE);
      const headers = sources.lastHeaders('/shoe.png');
      expect(headers).toMatchObject({
        accept: 'image/*',
        'accept-encoding': 'identity',
        'user-agent': 'image-job-service/1.0',
      });
      expect(headers).not.toHaveProperty('cookie');
      expect(headers).not.toHaveProperty('authorization');
    });

    it('does not judge the content type: the bytes are decided later', async () => {
      sources.serve('/page.html', IMAGE, { contentType: 'text/html' });
      await expect(fetcher.fetch(sources.url('/page.html'))).resolves.toEqual(IMAGE);
    });

    it.each([
      [404, false],
      [403, false],
      [500, true],
      [503, true],
      [429, true],
      [408, true],
    ])('turns HTTP %i into FetchFailed, retryable: %s', async (status, retryable) => {
      sources.serve(`/status-${status}`, 'nope', { status });
      const error = await failureOf(fetcher.fetch(sources.url(`/status-${status}?token=secret`)));
      expect(error).toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable,
        message: `The source answered HTTP ${status}.`,
      });
      expect(error.name).toBe('SourceFetchError');
    });

    it('treats a 3xx without Location as a permanent failure', async () => {
      sources.serve('/no-location', '', { status: 302 });
      await expect(fetcher.fetch(sources.url('/no-location'))).rejects.toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: false,
      });
    });

    it('succeeds once a failing source recovers, when the caller retries', async () => {
      sources.failThenServe('/flaky.png', 1, 503, IMAGE, 'image/png');
      await expect(fetcher.fetch(sources.url('/flaky.png'))).rejects.toMatchObject({ retryable: true });
      await expect(fetcher.fetch(sources.url('/flaky.png'))).resolves.toEqual(IMAGE);
    });
  });

  describe('size cap', () => {
    it('refuses a Content-Length over the cap without reading the body', async () => {
      // Only the head and a few bytes are ever sent: a fetcher that read on would hit its deadline.
      sources.route('/huge-declared.png', (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(CAP * 100) });
        res.write(Buffer.alloc(16));
      });
      const error = await failureOf(fetcher.fetch(sources.url('/huge-declared.png')));
      expect(error).toMatchObject({
        failure: SourceFetchFailure.TooLarge,
        retryable: false,
        message: 'The source is larger than 64 KiB.',
      });
    });

    it('stops a chunked body as soon as it passes the cap', async () => {
      let sent = 0;
      sources.route('/endless.png', (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' });
        const chunk = Buffer.alloc(8 * 1024, 1);
        const timer = setInterval(() => {
          sent += chunk.length;
          res.write(chunk);
        }, 1);
        res.on('close', () => clearInterval(timer));
      });
      const error = await failureOf(fetcher.fetch(sources.url('/endless.png')));
      expect(error).toMatchObject({ failure: SourceFetchFailure.TooLarge, retryable: false });
      expect(sent).toBeLessThan(CAP * 10);
    });

    it('accepts a body of exactly the cap', async () => {
      const body = Buffer.alloc(CAP, 7);
      sources.serve('/exact.png', body, { contentType: 'image/png' });
      await expect(fetcher.fetch(sources.url('/exact.png'))).resolves.toEqual(body);
    });
  });

  describe('redirects', () => {
    it('follows 3 redirects of any kind', async () => {
      sources.serve('/three/image.png', IMAGE);
      sources.redirect('/three/1', sources.url('/three/2'), 301);
      sources.redirect('/three/2', sources.url('/three/3'), 307);
      sources.redirect('/three/3', sources.url('/three/image.png'), 308);
      await expect(fetcher.fetch(sources.url('/three/1'))).resolves.toEqual(IMAGE);
    });

    it('refuses a 4th redirect, permanently, without following it', async () => {
      sources.serve('/four/image.png', IMAGE);
      sources.redirect('/four/1', '/four/2');
      sources.redirect('/four/2', '/four/3', 303);
      sources.redirect('/four/3', '/four/4');
      sources.redirect('/four/4', '/four/image.png');
      const error = await failureOf(fetcher.fetch(sources.url('/four/1')));
      expect(error).toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: false,
        message: 'The source redirected more than 3 times.',
      });
      expect(sources.requests('/four/image.png')).toBe(0);
    });

    it('resolves a relative Location against the URL that sent it', async () => {
      sources.serve('/relative/images/photo.png', IMAGE);
      sources.redirect('/relative/old/photo.png', '../images/photo.png');
      await expect(fetcher.fetch(sources.url('/relative/old/photo.png'))).resolves.toEqual(IMAGE);
    });

    it('refuses a redirect to another scheme, permanently', async () => {
      sources.redirect('/to-file', 'file:///etc/passwd');
      await expect(fetcher.fetch(sources.url('/to-file'))).rejects.toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: false,
      });
    });

    it('re-checks each target: a redirect to 127.0.0.2 is blocked when only 127.0.0.1 is allowed', async () => {
      sources.serve('/on-second-address.png', IMAGE);
      sources.redirect('/to-second-address', sources.url('/on-second-address.png?sig=secret', '127.0.0.2'));
      const error = await failureOf(fetcher.fetch(sources.url('/to-second-address')));
      expect(error).toMatchObject({
        failure: SourceFetchFailure.Blocked,
        retryable: false,
        // The target was the source server's choice, not the client's: neither its host nor its port is named.
        message: 'The source redirected to an address that is not allowed.',
      });
      expect(error.cause).toMatchObject({ message: expect.stringContaining('127.0.0.2 is a loopback address') });
      expect(sources.requests('/on-second-address.png')).toBe(0);
    });

    it("names neither the host nor the port of a redirect's target that refuses the connection", async () => {
      const port = await closedPort();
      sources.redirect('/to-closed-port', `http://127.0.0.1:${port}/internal.png`);
      const error = await failureOf(fetcher.fetch(sources.url('/to-closed-port')));
      expect(error).toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: true,
        message: 'The server the source redirected to refused the connection.',
      });
      expect(error.cause).toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining(String(port)) });
    });
  });

  describe('destinations', () => {
    it('blocks a loopback URL when the allowlist does not name it', async () => {
      sources.serve('/private.png', IMAGE);
      const strict = fetcherWith({ OUTBOUND_ALLOWLIST: '' });
      await expect(strict.fetch(sources.url('/private.png'))).rejects.toMatchObject({
        failure: SourceFetchFailure.Blocked,
        retryable: false,
      });
      expect(sources.requests('/private.png')).toBe(0);
    });

    it('blocks a host name that resolves to a refused address, at connect time, redirects included', async () => {
      sources.serve('/rebound.png', IMAGE);
      sources.redirect('/to-name', `http://cdn.example.test:${sources.port}/rebound.png`);
      const rebinding = fetcherWith({}, fixedLookup({ address: '127.0.0.2' }));
      const direct = await failureOf(rebinding.fetch(`http://cdn.example.test:${sources.port}/rebound.png`));
      expect(direct).toMatchObject({
        failure: SourceFetchFailure.Blocked,
        retryable: false,
        message: 'The source host cdn.example.test resolves to an address that is not allowed.',
      });
      await expect(rebinding.fetch(sources.url('/to-name'))).rejects.toMatchObject({
        failure: SourceFetchFailure.Blocked,
        message: 'The source redirected to an address that is not allowed.',
      });
      expect(sources.requests('/rebound.png')).toBe(0);
    });

    it('names the host the client gave, but not the private address it resolves to; the cause keeps it', async () => {
      const internal = fetcherWith({}, fixedLookup({ address: '10.1.2.3' }));
      const error = await failureOf(internal.fetch('http://segmenter.example.test:8080/segment'));
      expect(error).toMatchObject({
        failure: SourceFetchFailure.Blocked,
        retryable: false,
        message: 'The source host segmenter.example.test resolves to an address that is not allowed.',
      });
      expect(error.cause).toMatchObject({
        hostname: 'segmenter.example.test',
        address: '10.1.2.3',
        message:
          'segmenter.example.test resolves to 10.1.2.3: ' +
          '10.1.2.3 is a private address, which outbound requests may not reach',
      });
    });

    it('connects to a host name whose resolved address is allowed (the resolver is really used)', async () => {
      sources.serve('/resolved.png', IMAGE);
      const resolving = fetcherWith({}, fixedLookup({ address: '127.0.0.1' }));
      await expect(resolving.fetch(`http://cdn.example.test:${sources.port}/resolved.png`)).resolves.toEqual(IMAGE);
    });

    it('fails permanently for a host name that does not exist', async () => {
      const unresolvable = fetcherWith({}, fixedLookup({ code: 'ENOTFOUND' }));
      await expect(unresolvable.fetch('http://gone.example.test/x.png')).rejects.toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: false,
        message: 'The source host gone.example.test could not be found (its host name does not exist).',
      });
    });

    it('refuses URLs that are not http or https, or not URLs', async () => {
      await expect(fetcher.fetch('ftp://example.com/x.png')).rejects.toMatchObject({ retryable: false });
      await expect(fetcher.fetch('not a url')).rejects.toMatchObject({ retryable: false });
    });

    it('fails retryably when the connection is refused', async () => {
      const port = await closedPort();
      await expect(fetcher.fetch(`http://127.0.0.1:${port}/x.png`)).rejects.toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: true,
        message: `The source host 127.0.0.1:${port} refused the connection.`,
      });
    });

    it('fails retryably when the source closes the connection mid-body', async () => {
      sources.route('/cut.png', (_req, res) => {
        res.writeHead(200, { 'content-length': '1000' });
        res.write(Buffer.alloc(10));
        setTimeout(() => res.destroy(), 20);
      });
      await expect(fetcher.fetch(sources.url('/cut.png'))).rejects.toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: true,
      });
    });
  });

  describe('deadline and cancellation', () => {
    it('gives the whole download one deadline, and cuts it off there and not before', async () => {
      sources.hang('/silent.png');
      const quick = fetcherWith({ SOURCE_FETCH_TIMEOUT_SECONDS: '1' });
      // The deadline's timer on a fake clock; the connection and the server are real.
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      try {
        let settled = false;
        const failure = failureOf(quick.fetch(sources.url('/silent.png'))).finally(() => (settled = true));
        // The request has reached the server, which holds it.
        while (sources.requests('/silent.png') === 0) await realSleep(10);
        jest.advanceTimersByTime(999);
        await loopTurns(20);
        expect(settled).toBe(false);
        jest.advanceTimersByTime(1);
        await loopTurns(20);
        expect(settled).toBe(true);
        expect(await failure).toMatchObject({
          failure: SourceFetchFailure.FetchFailed,
          retryable: true,
          message: 'The source did not answer in full within 1 s.',
        });
      } finally {
        jest.useRealTimers();
      }
    });

    it('counts redirects and a slow body against the same deadline', async () => {
      sources.serve('/slow/image.png', IMAGE, { delayMs: 600 });
      sources.route('/slow/1', (_req, res) =>
        setTimeout(() => res.writeHead(302, { location: '/slow/image.png' }).end(), 600),
      );
      const quick = fetcherWith({ SOURCE_FETCH_TIMEOUT_SECONDS: '1' });
      await expect(quick.fetch(sources.url('/slow/1'))).rejects.toMatchObject({
        message: 'The source did not answer in full within 1 s.',
      });
    });

    it("stops when the caller's signal aborts", async () => {
      sources.hang('/cancelled.png');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expect(fetcher.fetch(sources.url('/cancelled.png'), controller.signal)).rejects.toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: true,
        message: expect.stringMatching(/cancelled/),
      });
    });

    it("does not start when the caller's signal has already aborted", async () => {
      sources.serve('/never.png', IMAGE);
      await expect(fetcher.fetch(sources.url('/never.png'), AbortSignal.abort())).rejects.toMatchObject({
        failure: SourceFetchFailure.FetchFailed,
        retryable: true,
      });
      expect(sources.requests('/never.png')).toBe(0);
    });
  });
});
