import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { OutboundAddressPolicy } from './address-policy';
import { CustomerDestinations } from './customer-destinations';
import { OperatorDestination } from './operator-destination';

/**
 * Extra TLS trust for outbound HTTPS. Production trusts the system's CAs plus
 * NODE_EXTRA_CA_CERTS, as Node does; tests running in one process override this with their
 * own CA, because Node reads NODE_EXTRA_CA_CERTS only at start.
 */
export const OUTBOUND_TLS = Symbol('OUTBOUND_TLS');

/**
 * The resolver of every outbound connection: the system's (`dns.lookup`) in production; tests
 * answer names of their own with it, so a host name can stand for a loopback server.
 */
export const OUTBOUND_LOOKUP = Symbol('OUTBOUND_LOOKUP');

/** The settings that name operator destinations, for the ones in use. */
type OperatorSettings = Pick<AppConfig, 'SEGMENTER' | 'SEGMENTER_URL' | 'IMAGE_PROVIDER' | 'IMAGE_PROVIDER_BASE_URL'>;

/**
 * The operator destinations `config` puts in use, by setting. S3_ENDPOINT is not among them:
 * the S3 client connects with its own agents, which no customer URL reaches.
 */
export function configuredOperatorDestinations(config: OperatorSettings): Array<{ setting: string; url: URL }> {
  const destinations: Array<{ setting: string; url: URL }> = [];
  if (config.SEGMENTER === 'remote' && config.SEGMENTER_URL)
    destinations.push({ setting: 'SEGMENTER_URL', url: new URL(config.SEGMENTER_URL) });
  if (config.IMAGE_PROVIDER === 'openai' && config.IMAGE_PROVIDER_BASE_URL)
    destinations.push({ setting: 'IMAGE_PROVIDER_BASE_URL', url: new URL(config.IMAGE_PROVIDER_BASE_URL) });
  return destinations;
}

/**
 * The one way the service reaches other hosts over HTTP(S), with two explicitly named doors so
 * a caller cannot take the wrong one by accident: `customer`, for URLs a customer (or another
 * outside party) chose, under the address policy and OUTBOUND_ALLOWLIST; and
 * `operatorDestination`, for a URL from the operator's configuration, trusted by its origin
 * alone. The two share nothing but the TLS trust and the resolver.
 */
@Injectable()
export class OutboundHttps implements OnModuleDestroy {
  readonly customer: CustomerDestinations;
  private readonly logger = new Logger(OutboundHttps.name);
  private readonly operatorDestinations = new Map<string, OperatorDestination>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(OUTBOUND_TLS) private readonly tls: SecureContextOptions,
    @Inject(OUTBOUND_LOOKUP) private readonly lookup: LookupFunction = dnsLookup,
  ) {
    const policy = new OutboundAddressPolicy(config.OUTBOUND_ALLOWLIST);
    this.customer = new CustomerDestinations(policy, tls, lookup);
    this.warnOfAllowlistedOperatorHosts(config, policy);
  }

  /**
   * The destination at `configured`, a URL taken from the operator's configuration and from
   * nowhere else: requests to its origin reach any address its host resolves to. One per
   * origin, so its connections are pooled.
   */
  operatorDestination(configured: URL): OperatorDestination {
    let destination = this.operatorDestinations.get(configured.origin);
    if (!destination) {
      destination = new OperatorDestination(configured, this.tls, this.lookup);
      this.operatorDestinations.set(configured.origin, destination);
    }
    return destination;
  }

  onModuleDestroy(): void {
    this.customer.destroy();
    for (const destination of this.operatorDestinations.values()) destination.destroy();
  }

  /**
   * OUTBOUND_ALLOWLIST used to be how an operator reached a private segmenter or provider, and
   * it still opens what it names to every customer URL. A deployment that kept such an entry
   * is told once, at start, so the operator can drop it.
   */
  private warnOfAllowlistedOperatorHosts(config: AppConfig, policy: OutboundAddressPolicy): void {
    const opened = configuredOperatorDestinations(config).filter(({ url }) => policy.opensHost(url.hostname));
    if (opened.length === 0) return;
    this.logger.warn(
      { destinations: opened.map(({ setting, url }) => `${setting} (${url.hostname})`) },
      `OUTBOUND_ALLOWLIST names the host of ${opened.map(({ setting }) => setting).join(' and ')}: customer URLs ` +
        '(sources, background photos, webhooks) can reach it. Operator destinations are reached by their ' +
        'configured URL and no longer need to be listed; remove the entry unless customers should reach that host.',
    );
  }
}
