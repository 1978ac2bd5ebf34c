import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import { sleep } from './waiting';

/** A complete answer: status, its `Connection` header and the whole body. */
export interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

/** A request that got no complete answer: the socket error's code, and whether the request had been sent. */
export class RequestFailed extends Error {
  constructor(
    readonly code: string,
    readonly written: boolean,
  ) {
    super(`${code}${written ? ' after the request was sent' : ''}`);
  }
}

/**
 * How long a request may go unanswered before it fails as `NO_ANSWER`, as a load balancer gives
 * up on a backend. These requests are answered in milliseconds, draining or not, even on a
 * loaded machine; one that is not was lost (a connection handed to a process that died), and
 * failing it lets the test report that, well within its own timeout, instead of waiting it out.
 */
const NO_ANSWER_MS = 30_000;

/**
 * A GET (or a request of another method) to a loopback port through node:http rather than
 * fetch, so a failure keeps its socket error code (ECONNRESET, ECONNREFUSED) and whether the
 * request had been written.
 */
export function send(
  port: number,
  path: string,
  { agent, method = 'GET', headers = {} }: { agent?: Agent; method?: string; headers?: OutgoingHttpHeaders } = {},
): Promise<Answer> {
  let unanswered: NodeJS.Timeout | undefined;
  return new Promise<Answer>((done, fail) => {
    let written = false;
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('aborted', () => fail(new RequestFailed('ABORTED_RESPONSE', written)));
      res.on('error', (error: NodeJS.ErrnoException) => fail(new RequestFailed(error.code ?? error.message, written)));
      res.on('end', () =>
        done({
          status: res.statusCode ?? 0,
          connection: res.headers.connection,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('finish', () => (written = true));
    req.on('error', (error: NodeJS.ErrnoException) => fail(new RequestFailed(error.code ?? error.message, written)));
    req.end();
    unanswered = setTimeout(() => req.destroy(new RequestFailed('NO_ANSWER', written)), NO_ANSWER_MS);
  }).finally(() => clearTimeout(unanswered));
}

/** One request of a load loop: what it asked, when, and how it ended. */
export interface LoadRecord {
  path: string;
  /** The load balancer had already seen readiness 503 when this request was sent. */
  sentAfterDrainSeen: boolean;
  answer?: Answer;
  failure?: RequestFailed;
}

/**
 * Keep-alive clients in front of one API process, behaving as a load balancer's connection
 * pool: each loop sends requests back to back over the shared keep-alive agent. Once
 * `drainSeen()` says readiness answered 503, the backend is out of rotation: a loop whose
 * connection the server closes (`Connection: close`) opens no new one and ends. A loop also
 * ends at its first failure, which is recorded.
 */
export async function runKeepAliveLoad({
  port,
  loops,
  paths,
  headers,
  drainSeen,
  onFirstAnswers,
}: {
  port: number;
  loops: number;
  paths: string[];
  headers: OutgoingHttpHeaders;
  drainSeen: () => boolean;
  /** Called once every loop has had an answer, so the caller can act while the load runs. */
  onFirstAnswers?: () => void;
}): Promise<LoadRecord[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: loops });
  const records: LoadRecord[] = [];
  let loopsAnswered = 0;
  const loop = async (index: number) => {
    for (let n = 0; ; n++) {
      const path = paths[(index + n) % paths.length];
      const sentAfterDrainSeen = drainSeen();
      try {
        const answer = await send(port, path, { agent, headers });
        records.push({ path, sentAfterDrainSeen, answer });
        if (n === 0 && ++loopsAnswered === loops) onFirstAnswers?.();
        if (sentAfterDrainSeen && answer.connection === 'close') return;
      } catch (error) {
        records.push({ path, sentAfterDrainSeen, failure: error as RequestFailed });
        // A loop that fails at once still counts, so the caller goes on and reports the failure.
        if (n === 0 && ++loopsAnswered === loops) onFirstAnswers?.();
        return;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: loops }, (_, index) => loop(index)));
  } finally {
    agent.destroy();
  }
  return records;
}

/**
 * A load balancer's readiness probe: a fresh connection every `intervalMs` until readiness has
 * answered 503 `failuresToStop` times in a row (the backend is then out of rotation). Returns
 * every status, in order; a failed probe is recorded by its error code and ends the probing.
 */
export async function probeReadinessUntilOut(
  port: number,
  {
    intervalMs = 100,
    failuresToStop = 3,
    onFirst503,
  }: { intervalMs?: number; failuresToStop?: number; onFirst503?: () => void },
): Promise<Array<number | string>> {
  const seen: Array<number | string> = [];
  let consecutive503 = 0;
  while (consecutive503 < failuresToStop) {
    try {
      const { status } = await send(port, '/health/ready');
      if (status === 503 && !seen.includes(503)) onFirst503?.();
      seen.push(status);
      consecutive503 = status === 503 ? consecutive503 + 1 : 0;
    } catch (error) {
      seen.push((error as RequestFailed).code);
      return seen;
    }
    await sleep(intervalMs);
  }
  return seen;
}
