/**
 * The soak's arithmetic: least-squares slopes of memory over time, overall and per half, and the
 * slope of each window's lowest value (the floor a garbage-collected heap falls back to, which a
 * leak raises while the sawtooth above it is only allocation between collections).
 */

/** One reading of the worker, `seconds` after the load started. */
export interface MemorySample {
  seconds: number;
  rssMb: number;
  heapUsedMb: number;
}

export interface SeriesSummary {
  min: number;
  max: number;
  mean: number;
  /** Least-squares slope over the samples after the warm-up, in MB per hour. */
  slopePerHour: number;
  /** Its standard error (see fitLine), in MB per hour. */
  slopeErrorPerHour: number;
  firstHalfPerHour: number;
  secondHalfPerHour: number;
  /** Slope of the lowest value of each window after the warm-up, in MB per hour. */
  floorSlopePerHour: number;
}

export interface LineFit {
  slope: number;
  /**
   * The slope's standard error, widened for the residuals' lag-1 autocorrelation (effective
   * sample size n(1 - r)/(1 + r)): memory sampled every few seconds stays near its last value,
   * so consecutive samples are not independent and the plain error would be too small.
   */
  standardError: number;
}

/** Least-squares line of y over x; NaN with fewer than three points or one distinct x. */
export function fitLine(points: ReadonlyArray<{ x: number; y: number }>): LineFit {
  const n = points.length;
  if (n < 3) return { slope: NaN, standardError: NaN };
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.x - meanX) * (p.y - meanY);
    variance += (p.x - meanX) ** 2;
  }
  if (variance === 0) return { slope: NaN, standardError: NaN };
  const slope = covariance / variance;
  const residuals = points.map((p) => p.y - meanY - slope * (p.x - meanX));
  const squares = residuals.reduce((sum, e) => sum + e * e, 0);
  let lagged = 0;
  for (let i = 1; i < n; i++) lagged += residuals[i] * residuals[i - 1];
  const r = squares === 0 ? 0 : Math.max(0, lagged / squares);
  const effective = Math.max(3, (n * (1 - r)) / (1 + r));
  const standardError = Math.sqrt(squares / (n - 2) / variance) * Math.sqrt(n / effective);
  return { slope, standardError };
}

const perHour = <T extends MemorySample>(samples: readonly T[], value: (s: T) => number) =>
  fitLine(samples.map((s) => ({ x: s.seconds / 3600, y: value(s) })));

/** The lowest sample of each `windowSeconds`, counted from the first sample. */
function floors<T extends MemorySample>(samples: readonly T[], value: (s: T) => number, windowSeconds: number): T[] {
  const start = samples[0]?.seconds ?? 0;
  const lowest = new Map<number, T>();
  for (const sample of samples) {
    const window = Math.floor((sample.seconds - start) / windowSeconds);
    const kept = lowest.get(window);
    if (!kept || value(sample) < value(kept)) lowest.set(window, sample);
  }
  return [...lowest.values()];
}

/**
 * Ranges over every sample; slopes over those from `warmupSeconds` on, the halves split at the
 * middle of that span's time.
 */
export function summarise<T extends MemorySample>(
  samples: readonly T[],
  value: (s: T) => number,
  warmupSeconds: number,
  floorWindowSeconds: number,
): SeriesSummary {
  const values = samples.map(value);
  const steady = samples.filter((s) => s.seconds >= warmupSeconds);
  const overall = perHour(steady, value);
  const middle = steady.length > 0 ? (steady[0].seconds + steady[steady.length - 1].seconds) / 2 : 0;
  return {
    min: Math.min(...values),
    max: Math.max(...values),
    mean: values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length),
    slopePerHour: overall.slope,
    slopeErrorPerHour: overall.standardError,
    firstHalfPerHour: perHour(
      steady.filter((s) => s.seconds < middle),
      value,
    ).slope,
    secondHalfPerHour: perHour(
      steady.filter((s) => s.seconds >= middle),
      value,
    ).slope,
    floorSlopePerHour: perHour(floors(steady, value, floorWindowSeconds), value).slope,
  };
}
