import { request } from 'node:https';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { BlockedDestinationError } from '../../core/outbound/address-policy';
import { OutboundHttps } from '../../core/outbound/outbound.module';

/** A receiver's reply is read this far and no further; nothing of it is kept but the status. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export type SendOutcome =
  { kind: 'response'; statusCode: number } | { kind: 'blocked'; reason: string } | { kind: 'error'; reason: string };

/**
 * One HTTPS POST: no redirects (a 3xx is just a failed attempt), a deadline over the whole
 * exchange, and only allowed destinations, checked at connect time.
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
      req.on('error', (error) => resolve(describeFailure(error)));
      req.end(payload);
    });
  }
}

function describeFailure(error: Error): SendOutcome {
  if (error instanceof BlockedDestinationError) return { kind: 'blocked', reason: error.message };
  if (error.name === 'AbortError' || error.name === 'TimeoutError') {
    return { kind: 'error', reason: 'the receiver did not answer in time' };
  }
  const code = (error as NodeJS.ErrnoException).code;
  return { kind: 'error', reason: code ? `${code}: ${error.message}` : error.message };
}
