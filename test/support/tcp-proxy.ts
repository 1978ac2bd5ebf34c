import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on a loopback port to a server (the test Redis), which a test can cut (every
 * connection through it dropped, new ones refused) and heal: a network partition between the
 * clients that connect through it and the server, which other clients never see.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private cutOff = false;

  private constructor(private readonly server: Server) {}

  static async start(targetUrl: string): Promise<TcpProxy> {
    const target = new URL(targetUrl);
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on('connection', (client) => proxy.relay(client, target.hostname, Number(target.port)));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    return proxy;
  }

  /** `url` with its host and port replaced by the relay's. */
  urlFor(url: string): string {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String((this.server.address() as AddressInfo).port);
    return through.toString();
  }

  /** Drops every connection through the relay, and each new one at once, until `heal`. */
  cut(): void {
    this.cutOff = true;
    for (const socket of this.sockets) socket.destroy();
  }

  heal(): void {
    this.cutOff = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((closed) => this.server.close(() => closed()));
  }

  private relay(client: Socket, host: string, port: number): void {
    if (this.cutOff) {
      client.destroy();
      return;
    }
    const upstream = connect(port, host);
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ]) {
      this.sockets.add(socket);
      socket.pipe(other);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        this.sockets.delete(socket);
        other.destroy();
      });
    }
  }
}
