import { drainSchedule } from './drain-schedule';

describe(drainSchedule.name, () => {
  it('keeps a quarter of a short grace for handing back and closing', () => {
    expect(drainSchedule(8)).toEqual({ handBackAfterMs: 6000, settleByMs: 7000 });
  });

  it('keeps at most 5 s of a long grace, so running work gets the rest', () => {
    expect(drainSchedule(25)).toEqual({ handBackAfterMs: 20_000, settleByMs: 22_500 });
    expect(drainSchedule(120)).toEqual({ handBackAfterMs: 115_000, settleByMs: 117_500 });
  });

  it('keeps at least 1 s, handing back at once when the grace is no longer', () => {
    expect(drainSchedule(2)).toEqual({ handBackAfterMs: 1000, settleByMs: 1500 });
    expect(drainSchedule(1)).toEqual({ handBackAfterMs: 0, settleByMs: 500 });
  });

  it('hands back before the work may still settle, and both before the grace ends', () => {
    for (const grace of [1, 3, 7, 19, 25, 600]) {
      const { handBackAfterMs, settleByMs } = drainSchedule(grace);
      expect(handBackAfterMs).toBeLessThan(settleByMs);
      expect(settleByMs).toBeLessThan(grace * 1000);
    }
  });
});
