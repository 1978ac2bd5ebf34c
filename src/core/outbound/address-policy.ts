import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Names that always mean this machine, whatever DNS says. */
const LOCAL_NAMES = /^(localhost|.+\.localhost)\.?$/i;

/**
 * A connection refused by the address policy. Its message names the address and is for the log
 * only: a caller tells a client what went wrong from `hostname` and the URL it chose, never the
 * address a name resolved to.
 */
export class BlockedDestinationError extends Error {
  constructor(
    /** The name that was looked up, or null when the address was given literally. */
    readonly hostname: string | null,
    readonly address: string,
    violation: string,
  ) {
    super(hostname ? `${hostname} resolves to ${address}: ${violation}` : violation);
    this.name = BlockedDestinationError.name;
  }
}

/**
 * Which addresses requests to customer URLs (source images, background photos, webhooks) may
 * reach: public unicast only, so private, loopback, link-local, carrier-grade NAT, unique-local
 * and cloud metadata addresses (169.254.169.254, fd00:ec2::254) are refused, unless
 * OUTBOUND_ALLOWLIST names the host, the address or a range holding it. The range
 * classification is ipaddr.js's. Operator destinations (SEGMENTER_URL, IMAGE_PROVIDER_BASE_URL)
 * are not judged by it: see `OperatorDestination`.
 */
export class OutboundAddressPolicy {
  private readonly hosts: ReadonlySet<string>;
  private readonly ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

  constructor(allowlist: readonly string[]) {
    const hosts = new Set<string>();
    const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
    for (const entry of allowlist) {
      if (entry.includes('/')) ranges.push(ipaddr.parseCIDR(entry));
      else if (isIP(entry)) ranges.push([ipaddr.process(entry), ipaddr.process(entry).kind() === 'ipv4' ? 32 : 128]);
      else hosts.add(entry.toLowerCase().replace(/\.$/, ''));
    }
    this.hosts = hosts;
    this.ranges = ranges;
  }

  /** An allowlisted host name may resolve to any address. */
  isAllowedHost(hostname: string): boolean {
    return this.hosts.has(hostname.toLowerCase().replace(/\.$/, ''));
  }

  /**
   * True when the allowlist opens `hostname` itself: by name, or, for an IP literal, by an
   * address or range holding it. A name the allowlist opens only through its resolved address
   * cannot be told without DNS, so it is not seen here.
   */
  opensHost(hostname: string): boolean {
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    if (this.isAllowedHost(host)) return true;
    return isIP(host) > 0 && this.inAllowedRange(ipaddr.process(host));
  }

  /** Null when `address` (a resolved IP) may be reached, else why not. */
  addressViolation(address: string): string | null {
    if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
    const parsed = ipaddr.process(address);
    if (this.inAllowedRange(parsed)) return null;
    const range = parsed.range();
    return range === 'unicast' ? null : `${address} is a ${range} address, which outbound requests may not reach`;
  }

  private inAllowedRange(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  }

  /**
   * What can be decided without DNS, for refusing a URL when it is submitted: an IP literal
   * or a local name. Names that resolve to private addresses are refused at connect time.
   */
  urlViolation(url: URL): string | null {
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (this.isAllowedHost(hostname)) return null;
    if (isIP(hostname)) return this.addressViolation(hostname);
    return LOCAL_NAMES.test(hostname) ? `${hostname} names this machine, which outbound requests may not reach` : null;
  }
}
