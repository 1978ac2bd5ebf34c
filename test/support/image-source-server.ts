import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { closeServer, listenOnLoopback } from './loopback-http';

/** Answers one request; it may answer later, or never (see `hang`). */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ServeOptions {
  /** 200 unless given. */
  status?: number;
  /** Sent as Content-Type when given; nothing is guessed. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Waits this long before answering, for deadline and concurrency tests. */
  delayMs?: number;
}

/** What the server saw of one request. */
export interface ReceivedRequest {
  path: string;
  /** The loopback address it arrived on, e.g. 127.0.0.2. */
  localAddress: string;
  headers: IncomingHttpHeaders;
}

/**
 * A plain-HTTP server on loopback that plays image sources for tests: fixed bodies, redirects,
 * failures, slow or silent answers. It listens on one port on each address given, so a test can
 * tell an allowlisted 127.0.0.1 from a refused 127.0.0.2 on the same server (Linux routes all of
 * 127.0.0.0/8 to the loopback interface). Routes match the path without its query string; an
 * unknown path answers 404. Every request is counted and recorded per path.
 *
 * ```ts
 * const sources = await ImageSourceServer.start(['127.0.0.1', '127.0.0.2']);
 * sources.serve('/shoe.png', pngBytes, { contentType: 'image/png' });
 * await fetcher.fetch(sources.url('/shoe.png'));
 * await sources.stop();
 * ```
 */
export class ImageSourceServer {
  readonly received: ReceivedRequest[] = [];
  private readonly routes = new Map<string, RouteHandler>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly servers: Server[] = [];
  private listeningPort = 0;

  private constructor() {}

  /** Listens on `hosts` (loopback addresses), all on the same free port. */
  static async start(hosts: readonly string[] = ['127.0.0.1']): Promise<ImageSourceServer> {
    if (hosts.length === 0) throw new Error('ImageSourceServer needs at least one address to listen on');
    const server = new ImageSourceServer();
    try {
      await server.listen(hosts);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  get port(): number {
    return this.listeningPort;
  }

  /** The URL of `path` (which may carry a query string) on one of the addresses listened on. */
  url(path: string, host = '127.0.0.1'): string {
    const authority = host.includes(':') ? `[${host}]` : host;
    return `http://${authority}:${this.listeningPort}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /** Answers `path` with `handler`, replacing any earlier route for it. */
  route(path: string, handler: RouteHandler): void {
    this.routes.set(path, handler);
  }

  /** Answers `path` with `body` and, as given, a status, content type, headers and delay. */
  serve(path: string, body: Buffer | string, options: ServeOptions = {}): void {
    const { status = 200, contentType, headers = {}, delayMs = 0 } = options;
    this.route(path, (_req, res) => {
      this.later(delayMs, () => {
        res.writeHead(status, { ...(contentType ? { 'content-type': contentType } : {}), ...headers });
        res.end(body);
      });
    });
  }

  /** Answers `path` with a redirect to `location`, relative or absolute, sent as it is. */
  redirect(path: string, location: string, status = 302): void {
    this.route(path, (_req, res) => res.writeHead(status, { location }).end());
  }

  /** Answers `failStatus` to the first `failures` requests for `path`, then `body`. */
  failThenServe(path: string, failures: number, failStatus: number, body: Buffer | string, contentType: string): void {
    this.route(path, (_req, res) => {
      if (this.requests(path) <= failures)
        res.writeHead(failStatus, { 'content-type': 'text/plain' }).end('failing on purpose');
      else res.writeHead(200, { 'content-type': contentType }).end(body);
    });
  }

  /** Accepts requests for `path` and never answers them; `stop` closes their connections. */
  hang(path: string): void {
    this.route(path, () => undefined);
  }

  /** How many requests arrived for `path` (without query string), on any address. */
  requests(path: string): number {
    return this.received.filter((request) => request.path === path).length;
  }

  /** Headers of the latest request for `path`, to check what a client sends. */
  lastHeaders(path: string): IncomingHttpHeaders | undefined {
    return this.received.filter((request) => request.path === path).at(-1)?.headers;
  }

  /** Closes every connection, answered or not, so a hanging route cannot keep the test process alive. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const servers = this.servers.splice(0);
    await Promise.all(servers.map(closeServer));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://source.invalid').pathname;
    this.received.push({ path, localAddress: req.socket.localAddress ?? '', headers: req.headers });
    const handler = this.routes.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('no such source');
  }

  private later(delayMs: number, answer: () => void): void {
    if (delayMs <= 0) return answer();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      answer();
    }, delayMs);
    this.timers.add(timer);
  }

  /** The first address picks a free port; the others take the same one. */
  private async listen(hosts: readonly string[]): Promise<void> {
    for (const host of hosts) {
      const server = createServer((req, res) => this.handle(req, res));
      this.listeningPort = await listenOnLoopback(server, this.listeningPort, host);
      this.servers.push(server);
    }
  }
}
