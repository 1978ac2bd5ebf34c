import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';

/**
 * How often idle connections are closed once the listener is closed: a keep-alive response
 * that was already under way when the drain began leaves its connection idle when it ends.
 */
const IDLE_SWEEP_INTERVAL_MS = 250;

/**
 * The HTTP half of a graceful shutdown, on the API's own `http.Server`:
 *
 * 1. `begin()`: every response from now on, and every one in flight whose headers are not yet
 *    sent, carries `Connection: close`, so keep-alive clients (a load balancer's pool among
 *    them) leave on their own after their answer instead of having a connection cut under a
 *    request they are sending.
 * 2. `stopAccepting()`: the listener closes, idle connections are closed, and the promise
 *    resolves once every request in flight has been answered and its connection is gone.
 *
 * Written here rather than with http-terminator or stoppable: those close the listener and the
 * idle connections at once, with no drain phase, and on Node 20 `http.Server.close()` itself
 * destroys idle connections, including one accepted a moment ago whose first request is not
 * read yet. That client has sent its request and would see a reset, so the listener is closed
 * at the `net.Server` level and idle connections are swept a beat later.
 */
export class HttpDrain {
  private draining = false;
  private readonly inFlight = new Set<ServerResponse>();

  constructor(private readonly server: Server) {
    // Ahead of the application's own listener, so even a response it sends synchronously is marked.
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      this.inFlight.add(response);
      response.once('close', () => this.inFlight.delete(response));
      if (this.draining) askClientToClose(response);
    });
  }

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  begin(): void {
    this.draining = true;
    for (const response of this.inFlight) askClientToClose(response);
  }

  stopAccepting(): Promise<void> {
    return new Promise((closed) => {
      const sweep = setInterval(() => this.server.closeIdleConnections(), IDLE_SWEEP_INTERVAL_MS);
      NetServer.prototype.close.call(this.server, () => {
        clearInterval(sweep);
        closed();
      });
    });
  }
}

function askClientToClose(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
}
