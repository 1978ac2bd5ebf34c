import { request, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './test-app';
import { readUntil } from './waiting';

/** One server-sent event: its name and its JSON data. */
export interface StreamEvent {
  event: string;
  data: Record<string, unknown>;
}

/** The app's HTTP server listening on a loopback port, for clients that hold a connection (an event stream). */
export async function listeningPort(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer() as import('node:http').Server;
  if (!server.listening) await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return (server.address() as AddressInfo).port;
}

/**
 * `GET /api/v1/events` read as a browser's fetch streaming reads it: the events and comments as
 * they arrive, or the error body when the stream is refused.
 */
export class EventStream {
  readonly events: StreamEvent[] = [];
  readonly comments: string[] = [];
  body = '';
  ended = false;
  private buffer = '';

  private constructor(
    private readonly req: ClientRequest,
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    res: IncomingMessage,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.feed(chunk));
    res.on('close', () => (this.ended = true));
  }

  static open(port: number, key: string): Promise<EventStream> {
    return new Promise((opened, failed) => {
      const req = request({
        host: '127.0.0.1',
        port,
        path: '/api/v1/events',
        agent: false,
        headers: { Authorization: `Bearer ${key}` },
      });
      req.on('response', (res) => opened(new EventStream(req, res.statusCode ?? 0, res.headers, res)));
      req.on('error', failed);
      req.end();
    });
  }

  /** Opens a stream and waits for its `ready` event, after which every change reaches it. */
  static async ready(port: number, key: string): Promise<EventStream> {
    const stream = await EventStream.open(port, key);
    if (stream.status !== 200) throw new Error(`the stream was refused with ${stream.status}: ${stream.body}`);
    await stream.waitFor((event) => event.event === 'ready', 'the ready event');
    return stream;
  }

  /** Waits for an event that `matches` and returns it. */
  async waitFor(matches: (event: StreamEvent) => boolean, what: string, timeoutMs = 20_000): Promise<StreamEvent> {
    const events = await readUntil(
      () => this.events,
      (events) => events.some(matches),
      () => `${what} (got ${JSON.stringify(this.events)})`,
      { timeoutMs, intervalMs: 25 },
    );
    return events.find(matches)!;
  }

  async waitForEnd(timeoutMs = 10_000): Promise<void> {
    await readUntil(
      () => this.ended,
      (ended) => ended,
      'the end of the stream',
      { timeoutMs, intervalMs: 25 },
    );
  }

  close(): void {
    this.req.destroy();
  }

  private feed(chunk: string): void {
    this.body += chunk;
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('event: ')) event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) data += line.slice('data: '.length);
      }
      if (data) this.events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
    }
  }
}
