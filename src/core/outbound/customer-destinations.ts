import type { LookupFunction } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { OutboundAddressPolicy } from './address-policy';
import { GuardedHttpAgent, GuardedHttpsAgent } from './guarded-https-agent';
import { AGENT_OPTIONS, type OutboundAgents } from './outbound-agents';

/**
 * The way to URLs a customer chose: source images, background photos, webhooks, and anything
 * else a party other than the operator picks (an image provider's result URL on another host).
 * Every connection goes through an agent that checks the address it connects to against the
 * policy: public addresses only, plus what OUTBOUND_ALLOWLIST names. Operator destinations are
 * not opened to these URLs by being configured; only the allowlist opens a private host.
 */
export class CustomerDestinations implements OutboundAgents {
  private readonly https: { guarded: GuardedHttpsAgent; trusted: GuardedHttpsAgent };
  private readonly http: { guarded: GuardedHttpAgent; trusted: GuardedHttpAgent };

  constructor(
    private readonly policy: OutboundAddressPolicy,
    tls: SecureContextOptions,
    lookup: LookupFunction,
  ) {
    this.https = {
      guarded: new GuardedHttpsAgent(policy, false, { ...AGENT_OPTIONS, ...tls, lookup }),
      trusted: new GuardedHttpsAgent(policy, true, { ...AGENT_OPTIONS, ...tls, lookup }),
    };
    this.http = {
      guarded: new GuardedHttpAgent(policy, false, { ...AGENT_OPTIONS, lookup }),
      trusted: new GuardedHttpAgent(policy, true, { ...AGENT_OPTIONS, lookup }),
    };
  }

  /**
   * Why `url` is refused before any DNS lookup (an IP literal or a local name the policy
   * forbids), or null. The reason names only what the URL itself says.
   */
  urlViolation(url: URL): string | null {
    return this.policy.urlViolation(url);
  }

  /**
   * The agent for `url`'s protocol (http: or https:), trusted (any address) only when the
   * allowlist names its host. Any other protocol is a caller's bug, so it throws.
   */
  agentFor(url: URL): GuardedHttpAgent | GuardedHttpsAgent {
    const agents = url.protocol === 'https:' ? this.https : url.protocol === 'http:' ? this.http : null;
    if (!agents) throw new Error(`No outbound agent for the ${url.protocol} protocol`);
    return this.policy.isAllowedHost(url.hostname) ? agents.trusted : agents.guarded;
  }

  destroy(): void {
    for (const agent of [this.https.guarded, this.https.trusted, this.http.guarded, this.http.trusted]) agent.destroy();
  }
}
