import { Global, Inject, Injectable, Module, type OnModuleDestroy } from '@nestjs/common';
import type { SecureContextOptions } from 'node:tls';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { OutboundAddressPolicy } from './address-policy';
import { GuardedHttpsAgent } from './guarded-https-agent';

/**
 * Extra TLS trust for outbound HTTPS. Production trusts the system's CAs plus
 * NODE_EXTRA_CA_CERTS, as Node does; tests running in one process override this with their
 * own CA, because Node reads NODE_EXTRA_CA_CERTS only at start.
 */
export const OUTBOUND_TLS = Symbol('OUTBOUND_TLS');

/** Connections are kept alive per destination, so repeated deliveries skip the TLS handshake. */
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 256, maxFreeSockets: 256, scheduling: 'lifo' as const };

/** The one way the service reaches outside hosts over HTTPS. */
@Injectable()
export class OutboundHttps implements OnModuleDestroy {
  readonly policy: OutboundAddressPolicy;
  private readonly guarded: GuardedHttpsAgent;
  private readonly trusted: GuardedHttpsAgent;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(OUTBOUND_TLS) tls: SecureContextOptions) {
    this.policy = new OutboundAddressPolicy(config.OUTBOUND_ALLOWLIST);
    this.guarded = new GuardedHttpsAgent(this.policy, false, { ...AGENT_OPTIONS, ...tls });
    this.trusted = new GuardedHttpsAgent(this.policy, true, { ...AGENT_OPTIONS, ...tls });
  }

  agentFor(url: URL): GuardedHttpsAgent {
    return this.policy.isAllowedHost(url.hostname) ? this.trusted : this.guarded;
  }

  onModuleDestroy(): void {
    this.guarded.destroy();
    this.trusted.destroy();
  }
}

@Global()
@Module({
  providers: [{ provide: OUTBOUND_TLS, useValue: {} }, OutboundHttps],
  exports: [OutboundHttps],
})
export class OutboundModule {}
