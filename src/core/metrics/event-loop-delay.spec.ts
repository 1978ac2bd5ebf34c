import { EventLoopDelayWindow } from './event-loop-delay';

/** Ticks every 10 ms from `fromMs` for `forMs`, each `lateMs` late; returns when the last ran. */
function tick(window: EventLoopDelayWindow, fromMs: number, forMs: number, lateMs: number): number {
  let at = fromMs;
  for (; at < fromMs + forMs; at += 10 + lateMs) window.record(lateMs, at);
  return at;
}

/** Two significant figures are kept: a reading is within 1% of the delay (closeTo allows 10^-digits / 2). */
const near = (seconds: number) => expect.closeTo(seconds, -Math.log10(seconds * 0.02));

describe(EventLoopDelayWindow.name, () => {
  it('reads 0 before the first tick', () => {
    expect(new EventLoopDelayWindow().snapshot(1000)).toEqual({ samples: 0, p50: 0, p99: 0, max: 0 });
  });

  it('reads an idle loop as the lateness of its ticks, not the interval between them', () => {
    const window = new EventLoopDelayWindow();
    const end = tick(window, 0, 30_000, 0.2);
    const { p50, p99, max } = window.snapshot(end);
    expect({ p50, p99, max }).toEqual({ p50: near(0.0002), p99: near(0.0002), max: near(0.0002) });
  });

  it('resolves a p99 well under 50 ms: a loop late by 30 ms 2% of the time reads 30 ms', () => {
    const window = new EventLoopDelayWindow();
    let at = 0;
    // 50 s: every second, 98 ticks 1 ms late and two 30 ms late.
    for (let second = 0; second < 50; second++) {
      for (let i = 0; i < 98; i++) window.record(i % 49 === 0 ? 30 : 1, (at += 10));
    }
    const { p50, p99, max } = window.snapshot(at);
    expect(p50).toEqual(near(0.001));
    expect(p99).toEqual(near(0.03));
    expect(max).toEqual(near(0.03));
  });

  it('weighs a block by how long it lasted: ticks it kept from running count as late as they would have been', () => {
    const window = new EventLoopDelayWindow();
    // 58 s of a healthy loop with a 200 ms block every 5 s: 4% of the time blocked.
    let at = 0;
    for (let block = 0; block < 11; block++) {
      at = tick(window, at, 5000, 0.5);
      window.record(200, (at += 200));
    }
    const { samples, p50, p99, max } = window.snapshot(at);
    // 20 samples per block (200, 190 ... 10 ms late), as a timer due every 10 ms would have seen.
    expect(samples).toBe(11 * Math.ceil(5000 / 10.5) + 11 * 20);
    expect(p50).toEqual(near(0.0005));
    // Counted once per block, as tick-weighted monitors do, the blocks would be 0.2% of samples, under p99.
    expect(p99).toBeGreaterThan(0.1);
    expect(max).toEqual(near(0.2));
  });

  it('covers the last minute, in steps of 10 s, whoever read it and how often', () => {
    const window = new EventLoopDelayWindow();
    window.record(500, 5_000);
    let at = tick(window, 5_000, 40_000, 1);
    // Reading does not reset the window.
    expect(window.snapshot(at).max).toEqual(near(0.5));
    expect(window.snapshot(at).max).toEqual(near(0.5));
    at = tick(window, at, 14_000, 1);
    // Until 60 s the window starts at 0 s; from 60 s its first step (0 to 10 s) has gone.
    expect(at).toBeLessThan(60_000);
    expect(window.snapshot(59_999).max).toEqual(near(0.5));
    at = tick(window, at, 1_500, 1);
    expect(at).toBeGreaterThan(60_000);
    expect(window.snapshot(at).max).toEqual(near(0.001));
    // A step of the ring that comes round again starts empty.
    window.record(5, 125_000);
    expect(window.snapshot(125_000)).toEqual({ samples: 1, p50: near(0.005), p99: near(0.005), max: near(0.005) });
  });

  it('records a tick that ran early or on time as the smallest delay it keeps, 1 µs', () => {
    const window = new EventLoopDelayWindow();
    window.record(0, 10);
    expect(window.snapshot(10)).toEqual({ samples: 1, p50: 1e-6, p99: 1e-6, max: 1e-6 });
  });
});
