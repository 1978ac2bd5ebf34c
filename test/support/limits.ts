/** Per-key and per-account create limits high enough that a test's own creates never meet them. */
export const GENEROUS_CREATE_LIMITS = {
  LIMIT_CREATES_PER_HOUR_KEY: '1000',
  LIMIT_CREATES_PER_HOUR_ACCOUNT: '1000',
};

/** Create, poll and active-job limits high enough that a test's own requests never meet them. */
export const GENEROUS_LIMITS = {
  ...GENEROUS_CREATE_LIMITS,
  LIMIT_POLLS_PER_HOUR_KEY: '1000',
  LIMIT_POLLS_PER_HOUR_ACCOUNT: '1000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '100',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '100',
};

/**
 * Create, active-job and capacity limits out of any test's reach, for suites that send thousands
 * of creates and check what each one answers, never a refusal for volume.
 */
export const UNREACHABLE_CREATE_LIMITS = {
  LIMIT_CREATES_PER_HOUR_KEY: '100000',
  LIMIT_CREATES_PER_HOUR_ACCOUNT: '100000',
  LIMIT_CREATES_PER_HOUR_IP: '100000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '100000',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '100000',
  CAPACITY_MAX_PENDING_RESULTS: '100000',
  CAPACITY_ACCOUNT_SHARE: '1',
};
