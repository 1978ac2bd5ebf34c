import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { connectionSettled } from '../../src/core/queue/connection-settled';

/**
 * A queue closed while its connection is still being set up must not end the process on an
 * unhandled "Connection is closed" error (taskforcesh/bullmq#3546): the worker's drain and the
 * queue module wait for the connection to settle first. Without that wait about one close in
 * eight, at these delays, surfaces the error.
 */
describe('closing a queue that is still connecting', () => {
  const url = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const connection = { host: url.hostname, port: Number(url.port || 6379) };
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);

  beforeAll(() => process.on('unhandledRejection', record));
  afterAll(() => process.off('unhandledRejection', record));

  it('raises no unhandled error once its connection has settled', async () => {
    for (let i = 0; i < 80; i++) {
      const queue = new Queue(`close-${randomUUID()}`, { connection, prefix: 'test-close' });
      queue.on('error', () => undefined);
      await sleep(i % 5);
      await connectionSettled(queue);
      await queue.close();
    }
    await sleep(300);
    expect(unhandled).toEqual([]);
  });

  it('waits no longer than its bound for a connection that never settles', async () => {
    // Against a timer set before the wait and due long after its bound: the wait ends first.
    const ended: string[] = [];
    const later = setTimeout(() => ended.push('a timer due at 20 times the bound'), 1000);
    await connectionSettled({ waitUntilReady: () => new Promise(() => undefined) }, 50);
    ended.push('the wait');
    clearTimeout(later);
    expect(ended).toEqual(['the wait']);
  });
});
