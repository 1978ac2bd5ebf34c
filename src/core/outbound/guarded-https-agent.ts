import type { LookupFunction, Socket } from 'node:net';
import { isIP, Socket as NetSocket } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, type AgentOptions as HttpAgentOptions } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { BlockedDestinationError, type OutboundAddressPolicy } from './address-policy';

type ConnectOptions = { host?: string; port?: number | string; lookup?: LookupFunction } & Record<string, unknown>;
type ConnectCallback = (error: Error | null, socket: Duplex) => void;
type CreateConnection = (options: ConnectOptions, callback?: ConnectCallback) => Duplex | null | undefined;

/**
 * The connect-time check both customer agents run for every new connection. An IP literal is
 * judged here, because Node does not call `lookup` for one; a name is judged after DNS, inside
 * the lookup the socket uses, so a name that resolves differently on a second lookup (DNS
 * rebinding) cannot reach a forbidden address. `trusted` (a host the allowlist names) skips it.
 */
function connectGuarded(
  policy: OutboundAddressPolicy,
  trusted: boolean,
  options: ConnectOptions,
  callback: ConnectCallback | undefined,
  connect: CreateConnection,
): Duplex | null | undefined {
  if (trusted) return connect(options, callback);
  const host = options.host ?? '';
  if (isIP(host)) {
    const violation = policy.addressViolation(host);
    if (violation) return refuse(new BlockedDestinationError(null, host, violation), callback);
  }
  return connect({ ...options, lookup: guardedLookup(policy, options.lookup) }, callback);
}

function guardedLookup(policy: OutboundAddressPolicy, inner: LookupFunction | undefined): LookupFunction {
  const resolve = inner ?? dnsLookup;
  return (hostname, options, callback) => {
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses: LookupAddress[] = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
      for (const candidate of addresses) {
        const violation = policy.addressViolation(candidate.address);
        if (violation)
          return callback(new BlockedDestinationError(hostname, candidate.address, violation), address, family);
      }
      callback(null, address, family);
    });
  };
}

/** A socket that fails with `error` without connecting, the way the agent expects a failed connect. */
function refuse(error: Error, callback?: ConnectCallback): Socket {
  const socket = new NetSocket();
  if (callback) callback(error, socket);
  else process.nextTick(() => socket.destroy(error));
  return socket;
}

/**
 * The connect-time check of an operator destination's agents: the connection goes to the
 * configured host and port, whatever address the host resolves to, or nowhere. The host was
 * chosen by the operator, so its address is not judged; anything else is refused, so the agent
 * cannot carry a request to a host nobody configured, even if a caller handed it the wrong URL.
 */
function connectToOrigin(
  origin: ConfiguredOrigin,
  options: ConnectOptions,
  callback: ConnectCallback | undefined,
  connect: CreateConnection,
): Duplex | null | undefined {
  const host = (options.host ?? '').toLowerCase();
  if (host !== origin.host || String(options.port) !== origin.port) {
    const reached = `${host}:${String(options.port)}`;
    return refuse(
      new BlockedDestinationError(
        null,
        reached,
        `${reached} is not the configured destination ${origin.host}:${origin.port}`,
      ),
      callback,
    );
  }
  return connect(options, callback);
}

/** The host (lower case, IPv6 without brackets) and port (explicit or the scheme's) an operator configured. */
export interface ConfiguredOrigin {
  host: string;
  port: string;
}

/**
 * An HTTPS agent that checks the address it is about to connect to, after DNS resolution and
 * for every connection (see `connectGuarded`). This is what request-filtering-agent does; its
 * releases that understand CIDR allowlists are ES modules only, which this CommonJS service
 * cannot load, so the hook is written here and the address rules come from ipaddr.js.
 */
export class GuardedHttpsAgent extends HttpsAgent {
  constructor(
    private readonly policy: OutboundAddressPolicy,
    /** True for an allowlisted host name: any address it resolves to may be reached. */
    private readonly trusted: boolean,
    options: HttpsAgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, callback?: ConnectCallback): Duplex | null | undefined {
    return connectGuarded(this.policy, this.trusted, options, callback, (o, c) => super.createConnection(o, c));
  }
}

/** The plain-HTTP twin of `GuardedHttpsAgent`, for source images served over http. */
export class GuardedHttpAgent extends HttpAgent {
  constructor(
    private readonly policy: OutboundAddressPolicy,
    /** True for an allowlisted host name: any address it resolves to may be reached. */
    private readonly trusted: boolean,
    options: HttpAgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, callback?: ConnectCallback): Duplex | null | undefined {
    return connectGuarded(this.policy, this.trusted, options, callback, (o, c) => super.createConnection(o, c));
  }
}

/** An HTTPS agent that connects only to one operator-configured host and port (see `connectToOrigin`). */
export class OriginBoundHttpsAgent extends HttpsAgent {
  constructor(
    private readonly origin: ConfiguredOrigin,
    options: HttpsAgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, callback?: ConnectCallback): Duplex | null | undefined {
    return connectToOrigin(this.origin, options, callback, (o, c) => super.createConnection(o, c));
  }
}

/** The plain-HTTP twin of `OriginBoundHttpsAgent`. */
export class OriginBoundHttpAgent extends HttpAgent {
  constructor(
    private readonly origin: ConfiguredOrigin,
    options: HttpAgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, callback?: ConnectCallback): Duplex | null | undefined {
    return connectToOrigin(this.origin, options, callback, (o, c) => super.createConnection(o, c));
  }
}
