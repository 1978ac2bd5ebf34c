import type { LookupFunction } from 'node:net';
import { request } from 'node:https';
import { testCertificate, WebhookReceiver } from '../../../test/support/webhook-receiver';
import { BlockedDestinationError, OutboundAddressPolicy } from './address-policy';
import { GuardedHttpsAgent } from './guarded-https-agent';

/** A resolver that answers each lookup with the next address: what a rebinding attacker's DNS does. */
function rebindingLookup(addresses: string[]): LookupFunction {
  let next = 0;
  return (_hostname, options, callback) => {
    const address = addresses[Math.min(next++, addresses.length - 1)];
    if (options.all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };
}

function post(agent: GuardedHttpsAgent, url: string, lookup?: LookupFunction): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, lookup, servername: 'localhost' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe(GuardedHttpsAgent.name, () => {
  let receiver: WebhookReceiver;
  const tls = () => ({ ca: [testCertificate().cert] });

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver.stop());

  it('refuses a loopback address given literally, before connecting', async () => {
    const agent = new GuardedHttpsAgent(new OutboundAddressPolicy([]), false, tls());
    await expect(post(agent, receiver.url)).rejects.toBeInstanceOf(BlockedDestinationError);
    agent.destroy();
  });

  it('checks the resolved address of every connection, so a name that rebinds to loopback is refused', async () => {
    const received = receiver.received.length;
    const agent = new GuardedHttpsAgent(new OutboundAddressPolicy([]), false, { ...tls(), keepAlive: false });
    const url = `https://hooks.example.test:${receiver.port}/x`;
    await expect(post(agent, url, rebindingLookup(['127.0.0.1']))).rejects.toBeInstanceOf(BlockedDestinationError);
    await expect(post(agent, url, rebindingLookup(['10.0.0.1']))).rejects.toThrow(/private/);
    expect(receiver.received.length).toBe(received);
    agent.destroy();
  });

  it('connects to an allowlisted address, whether given literally or resolved', async () => {
    const agent = new GuardedHttpsAgent(new OutboundAddressPolicy(['127.0.0.0/8']), false, tls());
    await expect(post(agent, receiver.url)).resolves.toBe(200);
    await expect(
      post(agent, `https://hooks.example.test:${receiver.port}/x`, rebindingLookup(['127.0.0.1'])),
    ).resolves.toBe(200);
    agent.destroy();
  });

  it('lets a trusted (allowlisted by name) host reach any address', async () => {
    const agent = new GuardedHttpsAgent(new OutboundAddressPolicy([]), true, tls());
    await expect(post(agent, receiver.url)).resolves.toBe(200);
    agent.destroy();
  });
});
