import { Agent, createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { HttpDrain } from './http-drain';

interface Reply {
  status: number;
  connection: string | undefined;
  body: string;
}

function getFrom(port: number, path: string, agent: Agent): Promise<Reply> {
  return new Promise((done, fail) => {
    get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    }).on('error', fail);
  });
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
}

describe(HttpDrain.name, () => {
  let server: Server;
  let drain: HttpDrain;
  let port: number;
  let agent: Agent;
  /** Requests to `/held` wait here until the test answers them. */
  const held: ServerResponse[] = [];
  let heldArrived: () => void;

  beforeEach(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/held') {
        held.push(res);
        heldArrived();
        return;
      }
      res.end('quick');
    });
    // Far beyond the test's timeout: an idle connection closes only if the drain closes it.
    server.keepAliveTimeout = 10 * 60_000;
    drain = new HttpDrain(server);
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    port = (server.address() as AddressInfo).port;
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
  });
  afterEach(() => {
    agent.destroy();
    held.length = 0;
    server.closeAllConnections();
    server.close();
  });

  /** Sends a request to `/held` and returns, once the server holds it, its reply to come. */
  const holdOne = async (): Promise<{ reply: Promise<Reply> }> => {
    const arrived = new Promise<void>((resolve) => (heldArrived = resolve));
    const reply = getFrom(port, '/held', agent);
    await arrived;
    return { reply };
  };

  it('leaves keep-alive alone until the drain begins', async () => {
    const reply = await getFrom(port, '/quick', agent);
    expect(reply.connection).toBe('keep-alive');
    expect(drain.requestsInFlight).toBe(0);
  });

  it('asks for Connection: close on every response once the drain begins, one in flight included', async () => {
    const { reply: heldReply } = await holdOne();
    expect(drain.requestsInFlight).toBe(1);
    drain.begin();
    const quick = await getFrom(port, '/quick', agent);
    expect(quick).toEqual({ status: 200, connection: 'close', body: 'quick' });
    held[0].end('held');
    expect(await heldReply).toEqual({ status: 200, connection: 'close', body: 'held' });
  });

  it('stops accepting, closes idle connections and resolves only after the request in flight is answered', async () => {
    // An idle keep-alive connection from before the drain, on an agent of its own so the held request cannot reuse it.
    const idleAgent = new Agent({ keepAlive: true });
    expect((await getFrom(port, '/quick', idleAgent)).connection).toBe('keep-alive');
    const idleSocketClosed = new Promise<void>((closed) => {
      const [idle] = Object.values(idleAgent.freeSockets).flat();
      idle?.once('close', () => closed());
    });
    const { reply: heldReply } = await holdOne();
    drain.begin();
    let stopped = false;
    const stopping = drain.stopAccepting().then(() => (stopped = true));
    expect(await refusesConnections(port)).toBe(true);
    expect(stopped).toBe(false);
    held[0].end('held');
    expect(await heldReply).toEqual({ status: 200, connection: 'close', body: 'held' });
    await stopping;
    await idleSocketClosed;
    expect(drain.requestsInFlight).toBe(0);
    idleAgent.destroy();
  });
});
