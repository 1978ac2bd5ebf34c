import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/** How often the event loop is sampled: a timer this many milliseconds apart. */
export const EVENT_LOOP_SAMPLE_MS = 10;
/** The window the quantiles cover: the last minute, four scrapes at Compose's 15 s interval. */
export const EVENT_LOOP_WINDOW_MS = 60_000;
/** The window moves in steps of a sixth of it (10 s): it covers between 50 and 60 s. */
const WINDOW_SLOTS = 6;
/** Delays are kept in microseconds, with two significant figures (1%), up to an hour. */
const HISTOGRAM = { lowest: 1, highest: 3_600_000_000, figures: 2 };

/** Event-loop delay over the window, in seconds; all 0 before the first sample. */
export interface EventLoopDelaySnapshot {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

interface Slot {
  /** Which step of the window the slot holds (`atMs` divided by the slot's length); -1 when unused. */
  step: number;
  histogram: RecordableHistogram;
}

const toMicroseconds = (ms: number) => Math.min(HISTOGRAM.highest, Math.max(1, Math.round(ms * 1000)));

/**
 * The distribution of event-loop delay over a sliding window, fed by a timer due every
 * `sampleMs`: each tick records how late it ran. A block of the loop delays one tick by its
 * length, but hides the ticks that would have been due during it; those are recorded too, each
 * as late as it would have been (HdrHistogram's correction for coordinated omission). So the
 * quantiles are over time, not over ticks: p99 is the delay a callback due at a moment chosen at
 * random over the window waits at most 99% of the time, and a loop blocked 2% of the time shows
 * its blocks at p99 however rarely it is sampled.
 *
 * Node's `monitorEventLoopDelay`, which prom-client's default `nodejs_eventloop_lag_*` gauges
 * read, counts one sample per block instead, records the whole interval between ticks (an idle
 * loop reads 10 ms, not 0), and is reset by every read of the registry (its window is "since
 * the previous scrape", whoever scraped). The window here depends on time alone.
 *
 * Kept in Node's own HDR histograms (perf_hooks), one per step of the window.
 */
export class EventLoopDelayWindow {
  private readonly slotMs: number;
  private readonly slots: Slot[];
  private readonly merged = createHistogram(HISTOGRAM);

  constructor(
    private readonly sampleMs = EVENT_LOOP_SAMPLE_MS,
    windowMs = EVENT_LOOP_WINDOW_MS,
  ) {
    this.slotMs = windowMs / WINDOW_SLOTS;
    this.slots = Array.from({ length: WINDOW_SLOTS }, () => ({ step: -1, histogram: createHistogram(HISTOGRAM) }));
  }

  /** A tick that ran `delayMs` late at `atMs` (a monotonic clock: `performance.now()`). */
  record(delayMs: number, atMs: number): void {
    const histogram = this.slotAt(atMs);
    histogram.record(toMicroseconds(delayMs));
    // The ticks the delay kept from running, each due `sampleMs` after the one before.
    for (let missed = delayMs - this.sampleMs; missed > 0; missed -= this.sampleMs) {
      histogram.record(toMicroseconds(missed));
    }
  }

  /** p50, p99 and max of the delays recorded in the window that ends at `atMs`. */
  snapshot(atMs: number): EventLoopDelaySnapshot {
    const step = Math.floor(atMs / this.slotMs);
    this.merged.reset();
    for (const slot of this.slots) {
      if (slot.step > step - WINDOW_SLOTS && slot.step <= step) this.merged.add(slot.histogram);
    }
    const samples = this.merged.count;
    if (samples === 0) return { samples, p50: 0, p99: 0, max: 0 };
    return {
      samples,
      p50: this.merged.percentile(50) / 1e6,
      p99: this.merged.percentile(99) / 1e6,
      max: this.merged.max / 1e6,
    };
  }

  private slotAt(atMs: number): RecordableHistogram {
    const step = Math.floor(atMs / this.slotMs);
    const slot = this.slots[step % WINDOW_SLOTS];
    if (slot.step !== step) {
      slot.histogram.reset();
      slot.step = step;
    }
    return slot.histogram;
  }
}
