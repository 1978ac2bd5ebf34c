import type { LookupFunction } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { BlockedDestinationError } from './address-policy';
import { OriginBoundHttpAgent, OriginBoundHttpsAgent, type ConfiguredOrigin } from './guarded-https-agent';
import { AGENT_OPTIONS, type OutboundAgents } from './outbound-agents';

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * A destination the operator configured (SEGMENTER_URL, IMAGE_PROVIDER_BASE_URL), trusted by
 * its origin alone: requests to that scheme, host and port connect to whatever address the host
 * resolves to, private ones included, without OUTBOUND_ALLOWLIST naming it; requests anywhere
 * else are refused. Nothing about it opens the host to customer URLs, which go through
 * `CustomerDestinations` and its policy.
 */
export class OperatorDestination implements OutboundAgents {
  /** The configured scheme, host and port, e.g. `http://segmenter.internal:8080`. */
  readonly origin: string;
  private readonly agent: OriginBoundHttpAgent | OriginBoundHttpsAgent;

  constructor(configured: URL, tls: SecureContextOptions, lookup: LookupFunction) {
    const port = DEFAULT_PORTS[configured.protocol];
    if (!port) throw new Error(`An operator destination must be http or https, not ${configured.protocol}`);
    this.origin = configured.origin;
    const bound: ConfiguredOrigin = {
      host: configured.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase(),
      port: configured.port || port,
    };
    this.agent =
      configured.protocol === 'https:'
        ? new OriginBoundHttpsAgent(bound, { ...AGENT_OPTIONS, ...tls, lookup })
        : new OriginBoundHttpAgent(bound, { ...AGENT_OPTIONS, lookup });
  }

  /** True when `url` is on this destination's origin, so a request to it is a request to the operator's service. */
  serves(url: URL): boolean {
    return url.origin === this.origin;
  }

  /** The agent for a URL on this origin; any other URL is refused, since only the origin is trusted. */
  agentFor(url: URL): OriginBoundHttpAgent | OriginBoundHttpsAgent {
    if (!this.serves(url)) {
      throw new BlockedDestinationError(
        null,
        url.host,
        `${url.origin} is not the configured destination ${this.origin}`,
      );
    }
    return this.agent;
  }

  destroy(): void {
    this.agent.destroy();
  }
}
