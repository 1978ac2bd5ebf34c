import { request, type Agent } from 'node:http';
import { Logger } from '@nestjs/common';
import { ImageSourceServer } from '../../../test/support/image-source-server';
import { resolveToLoopback, resolvingExampleTest } from '../../../test/support/outbound-with-resolver';
import { loadConfig } from '../config/load-config';
import { BlockedDestinationError } from './address-policy';
import { OutboundHttps } from './outbound-https';

/** The status of a GET of `url` through `agent`, or the error it failed with. */
function get(url: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe(OutboundHttps.name, () => {
  let server: ImageSourceServer;
  const outbounds: OutboundHttps[] = [];

  /** OutboundHttps for `env`, resolving `*.example.test` to 127.0.0.1. */
  function outboundWith(env: NodeJS.ProcessEnv): OutboundHttps {
    const outbound = new OutboundHttps(loadConfig(env), {}, resolvingExampleTest(resolveToLoopback));
    outbounds.push(outbound);
    return outbound;
  }

  beforeAll(async () => {
    server = await ImageSourceServer.start(['127.0.0.1']);
    server.serve('/segment', 'mask');
  });
  afterAll(async () => {
    for (const outbound of outbounds) outbound.onModuleDestroy();
    await server.stop();
  });
  afterEach(() => jest.restoreAllMocks());

  describe('an operator destination', () => {
    it('reaches its configured origin on a private address without OUTBOUND_ALLOWLIST naming it', async () => {
      const segmenterUrl = new URL(`http://segmenter.example.test:${server.port}/segment`);
      const destination = outboundWith({ OUTBOUND_ALLOWLIST: '' }).operatorDestination(segmenterUrl);
      await expect(get(segmenterUrl.href, destination.agentFor(segmenterUrl))).resolves.toBe(200);
    });

    it('opens nothing to customer URLs: the same host and port stay refused there', async () => {
      const outbound = outboundWith({ OUTBOUND_ALLOWLIST: '' });
      const segmenterUrl = new URL(`http://segmenter.example.test:${server.port}/segment`);
      outbound.operatorDestination(segmenterUrl);
      const before = server.requests('/segment');
      await expect(get(segmenterUrl.href, outbound.customer.agentFor(segmenterUrl))).rejects.toBeInstanceOf(
        BlockedDestinationError,
      );
      expect(outbound.customer.urlViolation(new URL(`http://127.0.0.1:${server.port}/segment`))).toMatch(/loopback/);
      expect(server.requests('/segment')).toBe(before);
    });

    it('trusts its origin only: another port, host or scheme is refused', () => {
      const destination = outboundWith({}).operatorDestination(new URL('http://segmenter.example.test:8080/segment'));
      expect(destination.serves(new URL('http://SEGMENTER.example.test:8080/other'))).toBe(true);
      for (const other of [
        'http://segmenter.example.test:8081/segment',
        'http://metadata.example.test:8080/segment',
        'https://segmenter.example.test:8080/segment',
      ]) {
        expect(destination.serves(new URL(other))).toBe(false);
        expect(() => destination.agentFor(new URL(other))).toThrow(BlockedDestinationError);
      }
    });

    it('has an agent that connects to nothing but its origin, even when handed another URL', async () => {
      const destination = outboundWith({}).operatorDestination(new URL(`http://127.0.0.1:${server.port}/segment`));
      const agent = destination.agentFor(new URL(`http://127.0.0.1:${server.port}/segment`));
      const elsewhere = await ImageSourceServer.start(['127.0.0.1']);
      try {
        elsewhere.serve('/secret', 'internal');
        await expect(get(elsewhere.url('/secret'), agent)).rejects.toBeInstanceOf(BlockedDestinationError);
        expect(elsewhere.requests('/secret')).toBe(0);
      } finally {
        await elsewhere.stop();
      }
    });
  });

  describe('the warning about operator hosts OUTBOUND_ALLOWLIST still names', () => {
    const remoteSegmenter = { SEGMENTER: 'remote', SEGMENTER_URL: 'http://segmenter.internal:8080/segment' };

    it.each([
      ['by name', 'segmenter.internal'],
      ['by name, among others', '10.9.0.0/16, Segmenter.Internal.'],
    ])('is logged once at start when the allowlist names the segmenter %s', (_how, allowlist) => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      outboundWith({ ...remoteSegmenter, OUTBOUND_ALLOWLIST: allowlist });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledWith(
        { destinations: ['SEGMENTER_URL (segmenter.internal)'] },
        expect.stringMatching(/customer URLs .* can reach it\. Operator destinations .* no longer need to be listed/),
      );
    });

    it('names an image provider whose address literal falls in an allowlisted range', () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      outboundWith({
        IMAGE_PROVIDER: 'openai',
        IMAGE_PROVIDER_API_KEY: 'sk-test',
        IMAGE_PROVIDER_BASE_URL: 'http://10.20.0.5:8000/v1',
        OUTBOUND_ALLOWLIST: '10.20.0.0/16',
      });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toEqual({ destinations: ['IMAGE_PROVIDER_BASE_URL (10.20.0.5)'] });
    });

    it('is not logged when the allowlist names no operator destination, or the destination is not in use', () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      outboundWith({ ...remoteSegmenter, OUTBOUND_ALLOWLIST: 'images.internal' });
      outboundWith({ ...remoteSegmenter, SEGMENTER: 'local', OUTBOUND_ALLOWLIST: 'segmenter.internal' });
      expect(warn).not.toHaveBeenCalled();
    });
  });
});
