import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { OutboundAgents } from './outbound-agents';

/** The global `fetch`'s shape, which clients such as `openai` take as their `fetch` option. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Statuses whose responses carry no body; `new Response` refuses one for them. */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` whose every connection goes through the agents of `destinations` (the customer
 * destinations, or one operator destination), so their rule applies to a library that speaks
 * fetch (the `openai` client) exactly as to the service's own requests. Node's global fetch
 * (undici) cannot use an `http.Agent`, so it would bypass the check; this one sends with
 * node:http and node:https.
 *
 * What differs from the global fetch, deliberately:
 * - Redirects are never followed: a 3xx is returned as it is, so a credential sent to one host
 *   cannot be carried to another and every host reached is one the caller chose.
 * - Only the identity encoding is asked for, and the body is handed over as received.
 * - A failure rejects with the underlying error (a `BlockedDestinationError` from the agent, a
 *   Node network error), not with fetch's generic TypeError, so a caller can tell them apart.
 * - The request body is read into memory before sending, so it goes out with a Content-Length
 *   rather than chunked; the bodies sent here (JSON, a few images) are in memory already.
 */
export function createGuardedFetch(destinations: OutboundAgents): FetchFunction {
  return async (input, init) => {
    // Request normalises every input and body the way fetch does: a FormData becomes
    // multipart bytes with its boundary in Content-Type, a string or Blob gets its type.
    const request = new Request(input, init);
    const { signal } = request;
    signal.throwIfAborted();
    const url = new URL(request.url);
    const agent = destinations.agentFor(url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : null;
    const headers: Record<string, string> = { ...Object.fromEntries(request.headers), 'accept-encoding': 'identity' };
    if (body) headers['content-length'] = String(body.length);
    signal.throwIfAborted();

    return new Promise<Response>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, { method: request.method, headers, agent });
      // Our own listener rather than the `signal` option, so the rejection is the signal's
      // reason, as with fetch, and not Node's generic AbortError.
      const abort = () => req.destroy(signal.reason as Error);
      signal.addEventListener('abort', abort, { once: true });
      req.on('error', (error) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      });
      req.on('response', (res) => {
        signal.removeEventListener('abort', abort);
        try {
          resolve(toResponse(res, url, request.method, signal));
        } catch (error) {
          res.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      req.end(body ?? undefined);
    });
  };
}

/** A fetch `Response` over `res`, its body streamed as it arrives. */
function toResponse(res: IncomingMessage, url: URL, method: string, signal: AbortSignal): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
  const bodyless = method === 'HEAD' || NULL_BODY_STATUSES.has(status);
  // A body nobody will read is drained, so the connection goes back to the agent's pool.
  if (bodyless) res.resume();
  const response = new Response(bodyless ? null : streamedBody(res, signal), {
    status,
    statusText: res.statusMessage,
    headers,
  });
  // A constructed Response has an empty url; fetch's names what was fetched, and clients log it.
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}

/**
 * `res` as a web stream that fails with the signal's reason when it aborts mid-body, as a
 * fetched body does. A connection closed before the body is complete fails it too.
 */
function streamedBody(res: IncomingMessage, signal: AbortSignal): ReadableStream<Uint8Array> {
  const abort = () => res.destroy(signal.reason as Error);
  signal.addEventListener('abort', abort, { once: true });
  res.once('close', () => signal.removeEventListener('abort', abort));
  return Readable.toWeb(res);
}
