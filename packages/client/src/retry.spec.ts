import { isRetryableStatus, retryDelayMs, sleep } from './retry';

describe(retryDelayMs.name, () => {
  it("waits exactly the server's Retry-After when it gave one", () => {
    expect(retryDelayMs({ retry: 0, retryAfterSeconds: 7 })).toBe(7000);
  });

  it('backs off exponentially with jitter between half and all of the step, up to the cap', () => {
    const steps = [0, 1, 2, 3, 4, 5].map((retry) => [
      retryDelayMs({ retry }, () => 0),
      retryDelayMs({ retry }, () => 1),
    ]);
    expect(steps).toEqual([
      [250, 500],
      [500, 1000],
      [1000, 2000],
      [2000, 4000],
      [4000, 8000],
      [4000, 8000],
    ]);
  });
});

describe(isRetryableStatus.name, () => {
  it('retries rate limits, capacity and server failures, never a refusal of the request itself', () => {
    expect([408, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 402, 403, 404, 409, 413, 415].some(isRetryableStatus)).toBe(false);
  });
});

describe(sleep.name, () => {
  it('rejects with the reason as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });
});
