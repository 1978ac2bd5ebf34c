import type { LookupFunction, Socket } from 'node:net';
import { isIP, Socket as NetSocket } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, type AgentOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { BlockedDestinationError, type OutboundAddressPolicy } from './address-policy';

type ConnectOptions = { host?: string; lookup?: LookupFunction } & Record<string, unknown>;
type ConnectCallback = (error: Error | null, socket: Duplex) => void;

/**
 * An HTTPS agent that checks the address it is about to connect to, after DNS resolution and
 * for every connection, so a name that resolves differently on a second lookup (DNS
 * rebinding) cannot reach a forbidden address. This is what request-filtering-agent does;
 * its releases that understand CIDR allowlists are ES modules only, which this CommonJS
 * service cannot load, so the hook is written here and the address rules come from ipaddr.js.
 */
export class GuardedHttpsAgent extends Agent {
  constructor(
    private readonly policy: OutboundAddressPolicy,
    /** True for an allowlisted host name: any address it resolves to may be reached. */
    private readonly trusted: boolean,
    options: AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, callback?: ConnectCallback): Duplex | null | undefined {
    const host = options.host ?? '';
    if (!this.trusted && isIP(host)) {
      const violation = this.policy.addressViolation(host);
      if (violation) return refuse(new BlockedDestinationError(violation), callback);
    }
    const guarded = this.trusted ? options : { ...options, lookup: this.guardedLookup(options.lookup) };
    const create = Agent.prototype.createConnection as (this: Agent, o: ConnectOptions, c?: ConnectCallback) => Duplex;
    return create.call(this, guarded, callback);
  }

  private guardedLookup(inner: LookupFunction | undefined): LookupFunction {
    const resolve = inner ?? (dnsLookup as unknown as LookupFunction);
    return (hostname, options, callback) => {
      resolve(hostname, options, (error, address, family) => {
        if (error) return callback(error, address, family);
        const addresses: LookupAddress[] = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
        for (const candidate of addresses) {
          const violation = this.policy.addressViolation(candidate.address);
          if (violation) return callback(new BlockedDestinationError(`${hostname}: ${violation}`), address, family);
        }
        callback(null, address, family);
      });
    };
  }
}

function refuse(error: Error, callback?: ConnectCallback): Socket {
  const socket = new NetSocket();
  if (callback) callback(error, socket);
  else process.nextTick(() => socket.destroy(error));
  return socket;
}
