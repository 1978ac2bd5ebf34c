import { Worker } from 'bullmq';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { HealthService } from '../../src/core/health/health.service';
import { OutboundHttps } from '../../src/core/outbound/outbound-https';
import { LocalSegmenter } from '../../src/core/segmentation/local-segmenter';
import { LocalUpscaler } from '../../src/core/super-resolution/local-upscaler';
import { QueueWorkersService } from '../../src/modules/jobs/worker/queue-workers.service';
import { createTestApp } from '../support/test-app';

/**
 * The worker's drain must end before anything it uses is released: Nest's shutdown calls every
 * module's `onModuleDestroy` first (importers before what they import), then
 * `beforeApplicationShutdown`, then `onApplicationShutdown`. This checks, on the worker role's
 * real module graph, that the queue workers drain before the models and the outbound agents go.
 */
describe('the worker role shutting down', () => {
  it('drains the queue workers before the segmenter, the upscaler and the outbound agents are released', async () => {
    const events: string[] = [];
    const record = <T extends object>(prototype: T, method: keyof T & string, name: string) => {
      const original = prototype[method] as (...args: unknown[]) => unknown;
      return jest
        .spyOn(prototype as Record<string, (...args: unknown[]) => unknown>, method)
        .mockImplementation(async function (this: unknown, ...args: unknown[]) {
          events.push(`${name} begins`);
          await original.apply(this, args);
          events.push(`${name} ends`);
        });
    };
    const spies = [
      record(QueueWorkersService.prototype, 'onModuleDestroy', 'drain'),
      record(LocalSegmenter.prototype, 'onModuleDestroy', 'segmenter release'),
      record(LocalUpscaler.prototype, 'onModuleDestroy', 'upscaler release'),
      record(OutboundHttps.prototype, 'onModuleDestroy', 'outbound release'),
    ];
    // The local segmenter is created (its model loads on first use only: this worker takes no
    // background-removal results, so nothing warms it).
    const t = await createTestApp(
      { SEGMENTER: 'local', UPSCALER: 'local', WORKER_QUEUES: 'processing,webhook-delivery' },
      { role: ProcessRole.Worker },
    );
    try {
      await t.close();
      const drainEnded = events.indexOf('drain ends');
      expect(drainEnded).toBeGreaterThanOrEqual(0);
      for (const release of ['segmenter release', 'upscaler release', 'outbound release']) {
        expect(events.indexOf(`${release} begins`)).toBeGreaterThan(drainEnded);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('stops taking jobs at the shutdown signal, before the application closes', async () => {
    // In role `all` the API drains its connections for seconds before the application closes;
    // the worker side must not take new work meanwhile, nor count its grace from later.
    const close = jest.spyOn(Worker.prototype, 'close');
    const t = await createTestApp({ WORKER_QUEUES: 'processing' }, { role: ProcessRole.Worker });
    try {
      expect(close).not.toHaveBeenCalled();
      t.app.get(HealthService).startDraining();
      expect(close).toHaveBeenCalled();
    } finally {
      await t.close();
      close.mockRestore();
    }
  });
});
