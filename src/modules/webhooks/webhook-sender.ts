import { request } from 'node:https';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { BlockedDestinationError } from '../../core/outbound/address-policy';
import { describeNetworkFailure } from '../../core/outbound/network-failure';
import { OutboundHttps } from '../../core/outbound/outbound.module';

/** A receiver's reply is read this far and no further; nothing of it is kept but the status. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * How one POST went. A `reason` is recorded on the attempt, which the account reads, so it says
 * what went wrong without the address a name resolved to or Node's error text; `cause`, when
 * there is one, is the error behind it, for the log.
 */
export type SendOutcome =
  | { kind: 'response'; statusCode: number }
  | { kind: 'blocked'; reason: string; cause?: Error }
  | { kind: 'error'; reason: string; cause?: Error };

/**
 * One HTTPS POST: no redirects (a 3xx is just a failed attempt), a deadline over the whole
 * exchange, and only destinations a customer URL may reach, checked at connect time.
 */
@Injectable()
export class WebhookSender {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbound: OutboundHttps,
  ) {}

  send(target: string, body: string, headers: Record<string, string>): Promise<SendOutcome> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return Promise.resolve({ kind: 'blocked', reason: 'the webhook URL is not a valid URL' });
    }
    if (url.protocol !== 'https:') return Promise.resolve({ kind: 'blocked', reason: 'webhook URLs must use https' });
    const violation = this.outbound.customer.urlViolation(url);
    if (violation) return Promise.resolve({ kind: 'blocked', reason: violation });

    return new Promise<SendOutcome>((resolve) => {
      const payload = Buffer.from(body);
      const req = request(url, {
        method: 'POST',
        agent: this.outbound.customer.agentFor(url),
        signal: AbortSignal.timeout(this.config.WEBHOOK_TIMEOUT_SECONDS * 1000),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'user-agent': 'image-job-service-webhooks/1',
        },
      });
      req.on('response', (res) => {
        let received = 0;
        const done = () => resolve({ kind: 'response', statusCode: res.statusCode ?? 0 });
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
      });
      req.on('error', (error) => resolve(describeFailure(error, url)));
      req.end(payload);
    });
  }
}

/** A failed POST to `url` (the account's own webhook URL), in words that name only its host. */
function describeFailure(error: Error, url: URL): SendOutcome {
  if (error instanceof BlockedDestinationError) {
    const reason = error.hostname
      ? `the webhook host ${url.hostname} resolves to an address that is not allowed`
      : `the webhook address ${url.hostname} is not allowed`;
    return { kind: 'blocked', reason, cause: error };
  }
  if (error.name === 'AbortError' || error.name === 'TimeoutError') {
    return { kind: 'error', reason: 'the receiver did not answer in time', cause: error };
  }
  return { kind: 'error', reason: describeNetworkFailure(error, 'the receiver').reason, cause: error };
}
