import type { LookupFunction } from 'node:net';
import type { AppConfig } from '../../src/core/config/config.schema';
import { GuardedHttpAgent } from '../../src/core/outbound/guarded-https-agent';
import { OutboundHttps, type GuardedAgent } from '../../src/core/outbound/outbound-https';

/**
 * OutboundHttps whose plain-HTTP agent for `*.example.test` host names resolves them with
 * `lookup` instead of DNS. The agent is the real GuardedHttpAgent, so the connect-time check
 * under test is the one production runs; only the resolver is replaced (Node passes agent
 * options to each connection).
 */
export class OutboundWithResolver extends OutboundHttps {
  private readonly resolving: GuardedHttpAgent;

  constructor(config: AppConfig, lookup: LookupFunction) {
    super(config, {});
    this.resolving = new GuardedHttpAgent(this.policy, false, { keepAlive: false, lookup });
  }

  override agentFor(url: URL): GuardedAgent {
    return url.hostname.endsWith('.example.test') ? this.resolving : super.agentFor(url);
  }

  override onModuleDestroy(): void {
    this.resolving.destroy();
    super.onModuleDestroy();
  }
}

/** Resolves every name to 127.0.0.1, a loopback address. */
export const resolveToLoopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};
