import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { EVENT_LOOP_SAMPLE_MS } from './event-loop-delay';
import { EventLoopMetrics } from './event-loop.metrics';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Keeps the event loop busy for `ms`, as pixel work on the loop does. */
function blockEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

/** A gauge's values by quantile (or '' without one), from a whole read of the registry, as a scrape makes. */
async function gaugeValues(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((candidate) => candidate.name === name);
  return Object.fromEntries((metric?.values ?? []).map(({ labels, value }) => [String(labels.quantile ?? ''), value]));
}

/**
 * The tick due during a block runs when it ends: it is late by the block's length less at most
 * one sampling interval (the block may have begun just after the tick before it ran).
 */
const SHOWS_A_200_MS_BLOCK = 0.2 - EVENT_LOOP_SAMPLE_MS / 1000;

describe(EventLoopMetrics.name, () => {
  let registry: Registry;
  let metrics: EventLoopMetrics;

  beforeEach(() => {
    registry = new Registry();
    metrics = new EventLoopMetrics(registry);
  });

  afterEach(() => metrics.onModuleDestroy());

  it('exports p50, p99 and max of the last minute; a 200 ms block shows as the max, at every read', async () => {
    await sleep(500);
    blockEventLoop(200);
    await sleep(50);

    const first = await gaugeValues(registry, 'imgjobs_event_loop_delay_seconds');
    expect(Object.keys(first).sort()).toEqual(['0.5', '0.99', '1']);
    expect(first['1']).toBeGreaterThanOrEqual(SHOWS_A_200_MS_BLOCK);
    // About 50 ticks of a free loop, and the 20 the block held up: the median is a free loop's.
    expect(first['0.5']).toBeLessThan(0.05);
    expect(first['0.99']).toBeGreaterThan(first['0.5']);

    // Reading does not reset the window: a second scraper sees the block too.
    const second = await gaugeValues(registry, 'imgjobs_event_loop_delay_seconds');
    expect(second['1']).toBeGreaterThanOrEqual(SHOWS_A_200_MS_BLOCK);
  });

  it("keeps the block that prom-client's default gauges forget at their first read", async () => {
    collectDefaultMetrics({ register: registry });
    await sleep(100);
    blockEventLoop(200);
    await sleep(50);

    const lagMax = async () => (await gaugeValues(registry, 'nodejs_eventloop_lag_max_seconds'))[''];
    expect(await lagMax()).toBeGreaterThanOrEqual(0.2);
    // The default's histogram is reset by every read of the registry: whoever reads next misses the block.
    expect(await lagMax()).toBeLessThan(0.2);
    expect((await gaugeValues(registry, 'imgjobs_event_loop_delay_seconds'))['1']).toBeGreaterThanOrEqual(
      SHOWS_A_200_MS_BLOCK,
    );
  });

  it('stops sampling when its module is destroyed', async () => {
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      metrics.onModuleDestroy();
      await sleep(5 * EVENT_LOOP_SAMPLE_MS);
      const sampling = timers.mock.calls.filter(([, ms]) => ms === EVENT_LOOP_SAMPLE_MS);
      expect(sampling).toEqual([]);
    } finally {
      timers.mockRestore();
    }
  });
});
