import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { BlockedDestinationError } from './address-policy';
import { asSentence, describeNetworkFailure } from './network-failure';
import { OutboundHttps } from './outbound-https';

export enum SourceFetchFailure {
  FetchFailed = 'fetch_failed',
  Blocked = 'blocked',
  TooLarge = 'too_large',
}

/**
 * Why a source could not be downloaded. `message` is shown to API clients as the result's
 * error message, so it never holds a stack, Node's error text, an address a name resolved to,
 * a host reached through a redirect or a URL's query string (which may carry credentials); the
 * host the client gave is named where it helps. `cause` keeps the detail for the log.
 */
export class SourceFetchError extends Error {
  constructor(
    readonly failure: SourceFetchFailure,
    /** True when the same request may succeed later (a 503, a reset connection, a timeout). */
    readonly retryable: boolean,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = SourceFetchError.name;
  }
}

const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Client errors that say "later", not "never". */
const RETRYABLE_CLIENT_STATUSES: ReadonlySet<number> = new Set([408, 425, 429]);

/**
 * Identity encoding because the bytes are handed on as they are (no decompression, so the cap
 * counts what is kept); no cookies, no credentials: each request stands alone.
 */
const REQUEST_HEADERS = {
  accept: 'image/*',
  'accept-encoding': 'identity',
  'user-agent': 'image-job-service/1.0',
} as const;

/**
 * One URL of a download: the client's own, or one a source redirected to. A redirect's target
 * was chosen by the source's server, not the client, so messages about it never name its host.
 */
interface Hop {
  url: URL;
  redirected: boolean;
}

/** One exchange's outcome: the body, or where the source redirects. */
type Answer = { kind: 'body'; body: Buffer } | { kind: 'redirect'; location: string };

/**
 * Downloads source images, for every tool. Only http and https; every connection, redirects
 * included, goes through the guarded agents, which check the address actually connected to;
 * one deadline covers the whole download; the size cap is enforced on the bytes as they stream,
 * whatever Content-Length claims. The content type is not looked at: the bytes decide later.
 */
@Injectable()
export class SourceFetcher {
  private readonly timeoutSeconds: number;
  private readonly maxBytes: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly outbound: OutboundHttps,
  ) {
    this.timeoutSeconds = config.SOURCE_FETCH_TIMEOUT_SECONDS;
    this.maxBytes = config.SOURCE_MAX_BYTES;
  }

  /**
   * The bytes at `url` (http or https). Rejects with SourceFetchError only; an abort by
   * `signal` rejects with a retryable FetchFailed that says the download was cancelled.
   */
  async fetch(url: string, signal?: AbortSignal): Promise<Buffer> {
    // A timer of our own rather than AbortSignal.timeout, so it is cleared as soon as the
    // download ends and tells the deadline apart from the caller's abort.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutSeconds * 1000);
    const combined = signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal;
    try {
      signal?.throwIfAborted();
      return await this.follow(url, combined);
    } catch (error) {
      throw this.asFetchError(error, deadline.signal, signal);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Requests `url`, then each redirect target in turn, each checked as if it were the first. */
  private async follow(url: string, signal: AbortSignal): Promise<Buffer> {
    let current = this.checkedHop({ url: parseUrl(url), redirected: false });
    for (let redirects = 0; ; redirects++) {
      const hop = current;
      const answer = await this.exchange(hop.url, signal).catch((error: unknown) => {
        // An abort is described by fetch(), which knows whether it was the deadline or the caller.
        throw signal.aborted ? error : requestFailure(error, hop);
      });
      if (answer.kind === 'body') return answer.body;
      if (redirects === MAX_REDIRECTS) {
        throw new SourceFetchError(
          SourceFetchFailure.FetchFailed,
          false,
          `The source redirected more than ${MAX_REDIRECTS} times.`,
        );
      }
      current = this.checkedHop({ url: redirectTarget(hop.url, answer.location), redirected: true });
    }
  }

  /**
   * Refuses what can be refused before connecting: another scheme, an IP literal or a local
   * name the policy forbids. Names that resolve to forbidden addresses are refused by the agent.
   */
  private checkedHop(hop: Hop): Hop {
    if (hop.url.protocol !== 'http:' && hop.url.protocol !== 'https:') {
      const subject = hop.redirected ? 'The source redirected to a URL that' : 'The source URL';
      throw new SourceFetchError(SourceFetchFailure.FetchFailed, false, `${subject} does not use http or https.`);
    }
    const violation = this.outbound.customer.urlViolation(hop.url);
    if (violation) {
      // The client's own URL names what it says (an IP literal, localhost); a redirect's is not theirs to see.
      const detail = new BlockedDestinationError(null, hop.url.hostname, violation);
      throw hop.redirected
        ? blockedRedirect(detail)
        : blocked(`The source address is not allowed: ${violation}.`, detail);
    }
    return hop;
  }

  /** One GET through the guarded agent for `url`. */
  private exchange(url: URL, signal: AbortSignal): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, { agent: this.outbound.customer.agentFor(url), headers: REQUEST_HEADERS, signal });
      req.on('error', reject);
      req.on('response', (res) => void this.answer(res).then(resolve, reject));
      req.end();
    });
  }

  /** Turns a response into the body, a redirect or a SourceFetchError, by its status. */
  private async answer(res: IncomingMessage): Promise<Answer> {
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 200 && status < 300) return { kind: 'body', body: await this.readBody(res) };
    // Redirect and error bodies are never read; destroying the response frees the socket now
    // instead of draining a body of unknown size.
    res.destroy();
    if (REDIRECT_STATUSES.has(status) && location) return { kind: 'redirect', location };
    const retryable = (status >= 500 && status < 600) || RETRYABLE_CLIENT_STATUSES.has(status);
    throw new SourceFetchError(SourceFetchFailure.FetchFailed, retryable, `The source answered HTTP ${status}.`);
  }

  /**
   * The body, refused before reading when Content-Length is over the cap and as soon as the
   * streamed bytes pass it, for a server that lies about the length or sends it chunked.
   */
  private readBody(res: IncomingMessage): Promise<Buffer> {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      res.destroy();
      return Promise.reject(this.tooLarge());
    }
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > this.maxBytes) res.destroy(this.tooLarge());
        else chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks, received)));
      res.on('error', reject);
      // A connection closed mid-body ends the stream without 'end' and, depending on when it
      // happens, without 'error'; either way the body is incomplete.
      res.on('close', () => {
        if (!res.complete) reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      });
    });
  }

  private tooLarge(): SourceFetchError {
    return new SourceFetchError(
      SourceFetchFailure.TooLarge,
      false,
      `The source is larger than ${describeBytes(this.maxBytes)}.`,
    );
  }

  /**
   * Any failure as a SourceFetchError. An abort is judged by the signals, not by the error it
   * produced, because Node reports it differently depending on when it lands (AbortError
   * before the response, a reset or premature close while the body streams).
   */
  private asFetchError(error: unknown, deadline: AbortSignal, caller: AbortSignal | undefined): SourceFetchError {
    if (error instanceof SourceFetchError) return error;
    if (deadline.aborted) {
      return new SourceFetchError(
        SourceFetchFailure.FetchFailed,
        true,
        `The source did not answer in full within ${this.timeoutSeconds} s.`,
      );
    }
    if (caller?.aborted) {
      return new SourceFetchError(
        SourceFetchFailure.FetchFailed,
        true,
        'The source download was cancelled before it finished.',
      );
    }
    // follow() has already described every other failure; this is a safety net, not a path.
    return new SourceFetchError(SourceFetchFailure.FetchFailed, true, 'The source could not be downloaded.', {
      cause: error,
    });
  }
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new SourceFetchError(SourceFetchFailure.FetchFailed, false, 'The source URL is not a valid URL.');
  }
}

/** A Location header resolved against the URL that sent it, as browsers do for relative ones. */
function redirectTarget(from: URL, location: string): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new SourceFetchError(SourceFetchFailure.FetchFailed, false, 'The source redirected to an invalid URL.');
  }
}

function blocked(message: string, cause: BlockedDestinationError): SourceFetchError {
  return new SourceFetchError(SourceFetchFailure.Blocked, false, message, { cause });
}

function blockedRedirect(cause: BlockedDestinationError): SourceFetchError {
  return blocked('The source redirected to an address that is not allowed.', cause);
}

/**
 * A failed exchange: refused by the guarded agent, or a network error by its code. The message
 * is built from the code and the host the client gave, not from Node's text, so neither the
 * address connected to nor anything else of the request (a query string, a path) leaks into it.
 */
function requestFailure(error: unknown, hop: Hop): SourceFetchError {
  if (error instanceof SourceFetchError) return error;
  if (error instanceof BlockedDestinationError) {
    if (hop.redirected) return blockedRedirect(error);
    return blocked(
      error.hostname
        ? `The source host ${hop.url.hostname} resolves to an address that is not allowed.`
        : `The source address ${hop.url.hostname} is not allowed.`,
      error,
    );
  }
  const subject = hop.redirected ? 'the server the source redirected to' : `the source host ${hop.url.host}`;
  const { retryable, reason } = describeNetworkFailure(error, subject);
  return new SourceFetchError(SourceFetchFailure.FetchFailed, retryable, asSentence(reason), { cause: error });
}

function describeBytes(bytes: number): string {
  for (const [unit, size] of [
    ['MiB', 1024 * 1024],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size) return `${Number.isInteger(bytes / size) ? bytes / size : (bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} bytes`;
}
