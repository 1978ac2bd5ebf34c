import { firstAttemptWait } from './queue-workers.service';

describe(firstAttemptWait.name, () => {
  const entry = (attemptsStarted: number, processedOn: number | undefined, delay?: number) => ({
    attemptsStarted,
    timestamp: 10_000,
    processedOn,
    opts: delay === undefined ? {} : { delay },
  });

  it('measures from enqueue to the first attempt, in seconds', () => {
    expect(firstAttemptWait(entry(1, 12_500))).toBe(2.5);
  });

  it('starts the wait of a delayed entry when its delay is over', () => {
    expect(firstAttemptWait(entry(1, 16_000, 5_000))).toBe(1);
  });

  it('has no wait for a later attempt (a retry, or a restart after a stall)', () => {
    expect(firstAttemptWait(entry(2, 30_000))).toBeNull();
  });
});
