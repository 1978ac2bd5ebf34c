import { REPEATED_SIGNAL_WINDOW_MS, StopRequest, StopSignals } from './stop-signals';

describe(StopSignals.name, () => {
  let now: number;
  let signals: StopSignals;

  beforeEach(() => {
    now = 1_000_000;
    signals = new StopSignals(() => now);
  });

  it('asks for a graceful shutdown on the first signal', () => {
    expect(signals.received()).toBe(StopRequest.Graceful);
  });

  it('takes copies of the first signal within the window as the same request', () => {
    signals.received();
    now += REPEATED_SIGNAL_WINDOW_MS - 1;
    expect(signals.received()).toBe(StopRequest.Repeat);
    expect(signals.received()).toBe(StopRequest.Repeat);
  });

  it('takes a signal after the window as a request to exit at once, and every one after it', () => {
    signals.received();
    now += REPEATED_SIGNAL_WINDOW_MS;
    expect(signals.received()).toBe(StopRequest.Immediate);
    now += 10 * REPEATED_SIGNAL_WINDOW_MS;
    expect(signals.received()).toBe(StopRequest.Immediate);
  });

  it('measures the window from the first signal, not from its copies', () => {
    signals.received();
    now += REPEATED_SIGNAL_WINDOW_MS / 2;
    expect(signals.received()).toBe(StopRequest.Repeat);
    now += REPEATED_SIGNAL_WINDOW_MS / 2;
    expect(signals.received()).toBe(StopRequest.Immediate);
  });
});
