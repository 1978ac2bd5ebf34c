import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { SecureContextOptions } from 'node:tls';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { OutboundAddressPolicy } from './address-policy';
import { GuardedHttpAgent, GuardedHttpsAgent } from './guarded-https-agent';

/**
 * Extra TLS trust for outbound HTTPS. Production trusts the system's CAs plus
 * NODE_EXTRA_CA_CERTS, as Node does; tests running in one process override this with their
 * own CA, because Node reads NODE_EXTRA_CA_CERTS only at start.
 */
export const OUTBOUND_TLS = Symbol('OUTBOUND_TLS');

/** Connections are kept alive per destination, so repeated requests skip the TCP and TLS handshakes. */
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 256, maxFreeSockets: 256, scheduling: 'lifo' as const };

/** Either guarded agent; both check every connection's address against the policy. */
export type GuardedAgent = GuardedHttpAgent | GuardedHttpsAgent;

/**
 * The one way the service reaches outside hosts, over HTTPS (webhooks, sources) or plain HTTP
 * (sources only): every connection goes through an agent that checks the address it connects to.
 */
@Injectable()
export class OutboundHttps implements OnModuleDestroy {
  readonly policy: OutboundAddressPolicy;
  private readonly https: { guarded: GuardedHttpsAgent; trusted: GuardedHttpsAgent };
  private readonly http: { guarded: GuardedHttpAgent; trusted: GuardedHttpAgent };

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(OUTBOUND_TLS) tls: SecureContextOptions) {
    this.policy = new OutboundAddressPolicy(config.OUTBOUND_ALLOWLIST);
    this.https = {
      guarded: new GuardedHttpsAgent(this.policy, false, { ...AGENT_OPTIONS, ...tls }),
      trusted: new GuardedHttpsAgent(this.policy, true, { ...AGENT_OPTIONS, ...tls }),
    };
    this.http = {
      guarded: new GuardedHttpAgent(this.policy, false, AGENT_OPTIONS),
      trusted: new GuardedHttpAgent(this.policy, true, AGENT_OPTIONS),
    };
  }

  /**
   * The agent for `url`'s protocol (http: or https:), trusted (any address) only when the
   * allowlist names its host. Any other protocol is a caller's bug, so it throws.
   */
  agentFor(url: URL): GuardedAgent {
    const agents = url.protocol === 'https:' ? this.https : url.protocol === 'http:' ? this.http : null;
    if (!agents) throw new Error(`No outbound agent for the ${url.protocol} protocol`);
    return this.policy.isAllowedHost(url.hostname) ? agents.trusted : agents.guarded;
  }

  onModuleDestroy(): void {
    for (const agent of [this.https.guarded, this.https.trusted, this.http.guarded, this.http.trusted]) agent.destroy();
  }
}
