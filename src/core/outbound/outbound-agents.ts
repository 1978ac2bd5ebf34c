import type { Agent as HttpAgent } from 'node:http';

/** Connections are kept alive per destination, so repeated requests skip the TCP and TLS handshakes. */
export const AGENT_OPTIONS = { keepAlive: true, maxSockets: 256, maxFreeSockets: 256, scheduling: 'lifo' as const };

/**
 * What hands out the agent a request to a URL goes through: customer destinations or one
 * operator destination, each with its own rule for what a connection may reach.
 */
export interface OutboundAgents {
  agentFor(url: URL): HttpAgent;
}
