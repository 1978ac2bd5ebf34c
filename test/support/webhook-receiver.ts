import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback, readBody } from './loopback-http';
import { readUntil } from './waiting';

export interface TestCertificate {
  cert: string;
  key: string;
}

let certificate: TestCertificate | undefined;

/** A self-signed certificate for 127.0.0.1 and localhost, made once per test process with openssl. */
export function testCertificate(): TestCertificate {
  if (certificate) return certificate;
  const dir = mkdtempSync(join(tmpdir(), 'imgjobs-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    certificate = {
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    };
    return certificate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  receivedAt: number;
}

/** Answers one delivery: a status, and optionally headers (a redirect's Location, say) and a delay. */
export type Reply = (
  delivery: ReceivedDelivery,
  index: number,
) => number | { status: number; headers?: Record<string, string>; delayMs?: number };

/** A real HTTPS webhook receiver on loopback that records every request it gets. */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  private server: Server | undefined;
  /** Deliveries received and not yet ended: neither answered nor cut off by the sender. */
  private readonly open = new Set<ServerResponse>();
  private readonly pendingReplies = new Set<NodeJS.Timeout>();
  port = 0;

  constructor(private reply: Reply = () => 200) {}

  static async start(reply?: Reply, port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(reply);
    await receiver.listen(port);
    return receiver;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}/hooks`;
  }

  answer(reply: Reply): void {
    this.reply = reply;
  }

  async listen(port = this.port): Promise<void> {
    const { cert, key } = testCertificate();
    this.server = createServer({ cert, key }, (req, res) => {
      // A request cut off before its body ends is no delivery: nothing is recorded for it.
      void readBody(req).then(
        (body) => {
          const delivery = {
            headers: req.headers,
            body: body.toString('utf8'),
            path: req.url ?? '',
            receivedAt: Date.now(),
          };
          this.received.push(delivery);
          this.open.add(res);
          res.on('close', () => this.open.delete(res));
          const answer = this.reply(delivery, this.received.length - 1);
          const { status, headers = {}, delayMs = 0 } = typeof answer === 'number' ? { status: answer } : answer;
          const timer = setTimeout(() => {
            this.pendingReplies.delete(timer);
            res.writeHead(status, headers).end();
          }, delayMs);
          this.pendingReplies.add(timer);
        },
        () => undefined,
      );
    });
    this.port = await listenOnLoopback(this.server, port);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const timer of this.pendingReplies) clearTimeout(timer);
    this.pendingReplies.clear();
    await closeServer(server);
  }

  /** How many deliveries are still waiting for their answer, the sender still connected. */
  get openDeliveries(): number {
    return this.open.size;
  }

  /** Event ids in arrival order. */
  eventIds(): string[] {
    return this.received.map((delivery) => String(delivery.headers['x-service-event-id']));
  }

  /** Waits until at least `count` deliveries arrived, and returns all of them. */
  waitFor(count: number, timeoutMs = 20_000): Promise<ReceivedDelivery[]> {
    return readUntil(
      () => this.received,
      (received) => received.length >= count,
      (received) => `${count} deliveries (received ${received.length})`,
      { timeoutMs, intervalMs: 25 },
    );
  }
}

/** The Standard Webhooks headers a receiver maps ours to. */
export function standardHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return {
    'webhook-id': String(headers['x-service-event-id']),
    'webhook-timestamp': String(headers['x-service-timestamp']),
    'webhook-signature': String(headers['x-service-signature']),
  };
}
