import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AppConfig } from '../../src/core/config/config.schema';
import { OutboundHttps } from '../../src/core/outbound/outbound-https';

/**
 * A resolver that answers `*.example.test` host names with `lookup` and every other name from
 * the system's DNS: what a test gives as OUTBOUND_LOOKUP, so a name can stand for a loopback
 * server while the agents' connect-time checks stay the ones production runs.
 */
export function resolvingExampleTest(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) =>
    hostname.endsWith('.example.test') ? lookup(hostname, options, callback) : dnsLookup(hostname, options, callback);
}

/** OutboundHttps whose connections resolve `*.example.test` names with `lookup` instead of DNS. */
export class OutboundWithResolver extends OutboundHttps {
  constructor(config: AppConfig, lookup: LookupFunction) {
    super(config, {}, resolvingExampleTest(lookup));
  }
}

/** Resolves every name to 127.0.0.1, a loopback address. */
export const resolveToLoopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};
