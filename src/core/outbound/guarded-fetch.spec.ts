import type { IncomingMessage } from 'node:http';
import { ImageSourceServer } from '../../../test/support/image-source-server';
import { testCertificate, WebhookReceiver } from '../../../test/support/webhook-receiver';
import { BlockedDestinationError } from './address-policy';
import { loadConfig } from '../config/load-config';
import { createGuardedFetch, type FetchFunction } from './guarded-fetch';
import { OutboundHttps } from './outbound-https';

/** What the server received of one request, body included. */
interface Echo {
  method: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The multipart body the server received, parsed by the platform's own parser. */
function formDataOf(echo: Echo): Promise<FormData> {
  return new Request('http://server.invalid/', {
    method: 'POST',
    headers: { 'content-type': String(echo.headers['content-type']) },
    body: echo.body,
  }).formData();
}

describe('createGuardedFetch', () => {
  let server: ImageSourceServer;
  const outbounds: OutboundHttps[] = [];
  const echoes: Echo[] = [];

  function fetchWith(allowlist: string, tls = {}): FetchFunction {
    const outbound = new OutboundHttps(loadConfig({ OUTBOUND_ALLOWLIST: allowlist }), tls);
    outbounds.push(outbound);
    return createGuardedFetch(outbound.customer);
  }

  let fetch: FetchFunction;

  beforeAll(async () => {
    server = await ImageSourceServer.start(['127.0.0.1', '127.0.0.2']);
    server.route('/echo', (req, res) => {
      void readBody(req).then((body) => {
        echoes.push({ method: req.method ?? '', headers: req.headers, body });
        res
          .writeHead(201, 'Made', [
            ['content-type', 'text/plain'],
            ['set-cookie', 'a=1'],
            ['set-cookie', 'b=2'],
          ])
          .end('echoed');
      });
    });
    fetch = fetchWith('127.0.0.1');
  });

  afterAll(async () => {
    for (const outbound of outbounds) outbound.onModuleDestroy();
    await server.stop();
  });

  const lastEcho = () => echoes[echoes.length - 1];

  describe('requests', () => {
    it('sends the method and headers, asking for the identity encoding only', async () => {
      const response = await fetch(server.url('/echo'), {
        method: 'PUT',
        headers: { 'x-custom': 'yes', 'accept-encoding': 'gzip' },
      });
      expect(response.status).toBe(201);
      expect(lastEcho()).toMatchObject({
        method: 'PUT',
        headers: { 'x-custom': 'yes', 'accept-encoding': 'identity' },
      });
    });

    it('accepts a Request as its input, with its method, headers and body', async () => {
      await fetch(
        new Request(server.url('/echo'), { method: 'POST', headers: { 'x-from': 'request' }, body: 'inside' }),
      );
      expect(lastEcho()).toMatchObject({ method: 'POST', headers: { 'x-from': 'request' } });
      expect(lastEcho().body.toString()).toBe('inside');
    });

    it.each([
      ['a string', () => 'hello', 'text/plain;charset=UTF-8'],
      ['a Uint8Array', () => new Uint8Array([104, 101, 108, 108, 111]), undefined],
      ['a Buffer', () => Buffer.from('hello'), undefined],
      ['a Blob', () => new Blob(['hello'], { type: 'application/x-test' }), 'application/x-test'],
    ])('sends %s as the body with its length and type', async (_kind, body, contentType) => {
      await fetch(server.url('/echo'), { method: 'POST', body: body() });
      expect(lastEcho().body.toString()).toBe('hello');
      expect(lastEcho().headers['content-length']).toBe('5');
      expect(lastEcho().headers['content-type']).toBe(contentType);
    });

    it('sends a ReadableStream body in full', async () => {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('part one, '));
          controller.enqueue(new TextEncoder().encode('part two'));
          controller.close();
        },
      });
      await fetch(server.url('/echo'), { method: 'POST', body: stream, duplex: 'half' });
      expect(lastEcho().body.toString()).toBe('part one, part two');
    });

    it('sends a FormData as multipart with its boundary, files and fields intact', async () => {
      const form = new FormData();
      form.append('prompt', 'a red shoe, "quoted"\r\non two lines');
      form.append('image', new File([Buffer.from([1, 2, 3, 4])], 'shoe.png', { type: 'image/png' }));
      await fetch(server.url('/echo'), { method: 'POST', body: form });
      expect(lastEcho().headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      const received = await formDataOf(lastEcho());
      expect(received.get('prompt')).toBe('a red shoe, "quoted"\r\non two lines');
      const image = received.get('image') as File;
      expect(image.name).toBe('shoe.png');
      expect(image.type).toBe('image/png');
      expect(Buffer.from(await image.arrayBuffer())).toEqual(Buffer.from([1, 2, 3, 4]));
    });
  });

  describe('responses', () => {
    it('is a real Response: status, status text, every header, the URL fetched and the body', async () => {
      const response = await fetch(server.url('/echo'), { method: 'POST', body: 'x' });
      expect(response).toBeInstanceOf(Response);
      expect(response).toMatchObject({ status: 201, statusText: 'Made', ok: true, url: server.url('/echo') });
      expect(response.headers.get('content-type')).toBe('text/plain');
      expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      await expect(response.text()).resolves.toBe('echoed');
    });

    it('streams the body: the first bytes can be read before the server has sent the rest', async () => {
      let finish: () => void = () => undefined;
      server.route('/stream', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write('first ');
        finish = () => void res.end('last');
      });
      const response = await fetch(server.url('/stream'));
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      expect(Buffer.from(first.value as Uint8Array).toString()).toBe('first ');
      finish();
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        rest += Buffer.from(chunk.value).toString();
      expect(rest).toBe('last');
    });

    it('answers a 4xx or 5xx as a response, not a rejection', async () => {
      server.serve('/missing', 'no such thing', { status: 404, contentType: 'text/plain' });
      const response = await fetch(server.url('/missing'));
      expect(response).toMatchObject({ status: 404, ok: false });
      await expect(response.text()).resolves.toBe('no such thing');
    });

    it('has no body for a 204 or a HEAD request', async () => {
      server.serve('/empty', '', { status: 204 });
      server.serve('/page', 'a page', { contentType: 'text/plain' });
      expect((await fetch(server.url('/empty'))).body).toBeNull();
      const head = await fetch(server.url('/page'), { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.body).toBeNull();
    });

    it('does not follow a redirect: the 3xx is the answer', async () => {
      server.redirect('/moved', server.url('/page'));
      const before = server.requests('/page');
      const response = await fetch(server.url('/moved'));
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(server.url('/page'));
      expect(server.requests('/page')).toBe(before);
    });

    it('fails the body when the connection closes before it is complete', async () => {
      server.route('/cut', (_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('only some of it');
        setTimeout(() => res.destroy(), 20);
      });
      const response = await fetch(server.url('/cut'));
      await expect(response.arrayBuffer()).rejects.toThrow();
    });
  });

  describe('aborts', () => {
    it("rejects with the signal's reason without sending when it is already aborted", async () => {
      const reason = new Error('already cancelled');
      const before = server.requests('/echo');
      await expect(fetch(server.url('/echo'), { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      expect(server.requests('/echo')).toBe(before);
    });

    it("rejects with the signal's reason while waiting for the response", async () => {
      server.hang('/silent');
      const controller = new AbortController();
      const reason = new Error('cancelled while waiting');
      setTimeout(() => controller.abort(reason), 50);
      await expect(fetch(server.url('/silent'), { signal: controller.signal })).rejects.toBe(reason);
    });

    it("fails the body with the signal's reason when it aborts mid-body", async () => {
      server.route('/endless', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write('the beginning');
      });
      const controller = new AbortController();
      const response = await fetch(server.url('/endless'), { signal: controller.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      const reason = new Error('cancelled mid-body');
      controller.abort(reason);
      await expect(reader.read()).rejects.toBe(reason);
    });
  });

  describe('the outbound address policy', () => {
    it('refuses an address the policy forbids, without sending anything', async () => {
      const before = server.requests('/echo');
      await expect(fetch(server.url('/echo', '127.0.0.2'))).rejects.toBeInstanceOf(BlockedDestinationError);
      await expect(fetchWith('')(server.url('/echo'))).rejects.toThrow(/loopback/);
      expect(server.requests('/echo')).toBe(before);
    });

    it('reaches an address OUTBOUND_ALLOWLIST names', async () => {
      const before = server.requests('/echo');
      await expect(fetchWith('127.0.0.2')(server.url('/echo', '127.0.0.2'))).resolves.toMatchObject({ status: 201 });
      expect(server.received.at(-1)).toMatchObject({ path: '/echo', localAddress: '127.0.0.2' });
      expect(server.requests('/echo')).toBe(before + 1);
    });

    it('speaks HTTPS through the guarded HTTPS agent, with the outbound TLS trust', async () => {
      const receiver = await WebhookReceiver.start(() => 204);
      try {
        const response = await fetchWith('127.0.0.1', { ca: [testCertificate().cert] })(receiver.url, {
          method: 'POST',
          body: '{"ok":true}',
        });
        expect(response.status).toBe(204);
        expect(receiver.received.at(-1)?.body).toBe('{"ok":true}');
        await expect(fetchWith('', { ca: [testCertificate().cert] })(receiver.url)).rejects.toBeInstanceOf(
          BlockedDestinationError,
        );
      } finally {
        await receiver.stop();
      }
    });

    it('refuses a scheme other than http and https', async () => {
      await expect(fetch('data:,hello')).rejects.toThrow(/data: protocol/);
    });
  });
});
