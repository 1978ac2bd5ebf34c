import perfHooks, { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { EVENT_LOOP_SAMPLE_MS } from './event-loop-delay';
import { EventLoopMetrics } from './event-loop.metrics';

/** A gauge's values by quantile (or '' without one), from a whole read of the registry, as a scrape makes. */
async function gaugeValues(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((candidate) => candidate.name === name);
  return Object.fromEntries((metric?.values ?? []).map(({ labels, value }) => [String(labels.quantile ?? ''), value]));
}

/** Two significant figures are kept: a reading is within 1% of the delay (closeTo allows 10^-digits / 2). */
const near = (seconds: number) => expect.closeTo(seconds, -Math.log10(seconds * 0.02));

/**
 * The event loop on a fake clock: jest's fake timers decide when the sampling timer runs, and
 * `performance.now()` (which the metric reads) says what time it runs at. So a block of the loop
 * is a tick that runs late by a known amount, on any machine, however loaded.
 */
class FakeLoop {
  now = 0;
  /** What a monitor of Node's own (monitorEventLoopDelay) would see of the same loop, if given one. */
  constructor(private readonly monitor?: FakeDelayHistogram) {}

  /** The loop runs freely for `ms`: each tick of the sampling timer runs `lateMs` after it was due. */
  free(ms: number, lateMs: number): void {
    for (let ran = 0; ran < ms; ran += EVENT_LOOP_SAMPLE_MS + lateMs) this.tick(lateMs);
  }

  /** The loop is held for `ms` from the moment a tick was due: that tick runs `ms` late. */
  block(ms: number): void {
    this.tick(ms);
  }

  private tick(lateMs: number): void {
    this.now += EVENT_LOOP_SAMPLE_MS + lateMs;
    this.monitor?.record(lateMs);
    jest.advanceTimersByTime(EVENT_LOOP_SAMPLE_MS);
  }
}

/** Stands in for the histogram `monitorEventLoopDelay` returns: delays in nanoseconds, kept until reset. */
class FakeDelayHistogram {
  private delaysNs: number[] = [];
  record(ms: number): void {
    this.delaysNs.push(ms * 1e6);
  }
  enable = () => true;
  disable = () => true;
  reset = () => void (this.delaysNs = []);
  get min() {
    return this.delaysNs.length ? Math.min(...this.delaysNs) : 0;
  }
  get max() {
    return this.delaysNs.length ? Math.max(...this.delaysNs) : 0;
  }
  get mean() {
    return this.delaysNs.length ? this.delaysNs.reduce((sum, ns) => sum + ns, 0) / this.delaysNs.length : 0;
  }
  get stddev() {
    return 0;
  }
  percentile(p: number): number {
    const sorted = [...this.delaysNs].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  }
}

describe(EventLoopMetrics.name, () => {
  let registry: Registry;
  let metrics: EventLoopMetrics;
  let loop: FakeLoop;

  beforeEach(() => {
    jest.useFakeTimers();
    loop = new FakeLoop();
    jest.spyOn(performance, 'now').mockImplementation(() => loop.now);
    registry = new Registry();
    metrics = new EventLoopMetrics(registry);
  });

  afterEach(() => {
    metrics.onModuleDestroy();
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('exports p50, p99 and max of the last minute; a 200 ms block shows as the max, at every read', async () => {
    loop.free(500, 0.2);
    loop.block(200);
    loop.free(50, 0.2);

    const first = await gaugeValues(registry, 'imgjobs_event_loop_delay_seconds');
    expect(Object.keys(first).sort()).toEqual(['0.5', '0.99', '1']);
    expect(first['1']).toEqual(near(0.2));
    // 55 ticks of a free loop, and the 20 the block held up (200, 190 ... 10 ms late): the median
    // is a free loop's, the 99th percentile one of the block's.
    expect(first['0.5']).toEqual(near(0.0002));
    expect(first['0.99']).toEqual(near(0.19));

    // Reading does not reset the window: a second scraper sees the block too.
    const second = await gaugeValues(registry, 'imgjobs_event_loop_delay_seconds');
    expect(second).toEqual(first);
  });

  it("keeps the block that prom-client's default gauges forget at their first read", async () => {
    // prom-client's default gauges read a histogram of Node's monitorEventLoopDelay; here one
    // that records what the fake loop does.
    const monitor = new FakeDelayHistogram();
    jest
      .spyOn(perfHooks, 'monitorEventLoopDelay')
      .mockReturnValue(monitor as unknown as ReturnType<typeof perfHooks.monitorEventLoopDelay>);
    loop = new FakeLoop(monitor);
    collectDefaultMetrics({ register: registry });
    loop.free(100, 0.2);
    loop.block(200);
    loop.free(50, 0.2);

    const lagMax = async () => (await gaugeValues(registry, 'nodejs_eventloop_lag_max_seconds'))[''];
    expect(await lagMax()).toBe(0.2);
    // The default's histogram is reset by every read of the registry: whoever reads next misses the block.
    expect(await lagMax()).toBe(0);
    expect((await gaugeValues(registry, 'imgjobs_event_loop_delay_seconds'))['1']).toEqual(near(0.2));
  });

  it('stops sampling when its module is destroyed', () => {
    loop.free(100, 0);
    expect(jest.getTimerCount()).toBe(1);
    metrics.onModuleDestroy();
    expect(jest.getTimerCount()).toBe(0);
  });
});
