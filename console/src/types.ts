/** The API's shapes, as far as the console reads them (docs/api.md). */
export interface JobSummary {
  id: string;
  api: string;
  status: string;
  sandbox: boolean;
  total_results: number;
  completed_results: number;
  failed_results: number;
  credits_reserved: number;
  credits_used: number;
  created_at: string;
  completed_at: string | null;
}

export interface SubjectHints {
  region?: { left: number; top: number; right: number; bottom: number };
  keep_points?: { x: number; y: number }[];
}

export interface JobResult {
  id: string;
  index: number;
  external_id: string | null;
  source_image_url: string;
  subject_hints: SubjectHints | null;
  status: string;
  result_url: string | null;
  thumbnail_url: string | null;
  /** The service's preview of the source (docs/api.md): the only original the console shows. */
  source_preview_url: string | null;
  error_code: string | null;
  error_message: string | null;
  uncertainty: number | null;
  /** Flagged at completion (uncertainty at or above the account's threshold) and still pending. */
  needs_review: boolean;
  /** Null for results that are not completed cut-outs. */
  review: Review | null;
  credits_reserved: number;
  credits_used: number;
  created_at: string;
  completed_at: string | null;
}

export const REVIEW_STATES = ['pending', 'accepted', 'rejected', 'recut'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

export interface Review {
  state: ReviewState;
  /** The deciding key's name, or its id when it has none. */
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
  replaces_result_id: string | null;
  replaced_by_result_id: string | null;
}

/** A flagged cut-out as `GET /reviews` lists it. */
export interface ReviewItem {
  result_id: string;
  job_id: string;
  tool: string;
  index: number;
  external_id: string | null;
  source_image_url: string;
  result_url: string | null;
  thumbnail_url: string | null;
  source_preview_url: string | null;
  uncertainty: number | null;
  needs_review: boolean;
  review: Review;
  completed_at: string | null;
}

export interface ReviewList {
  results: ReviewItem[];
  next_cursor: string | null;
}

export interface ReviewSummary {
  pending: number;
  review_threshold: number;
}

export interface JobDetail {
  job: JobSummary;
  results: JobResult[];
}

export interface JobList {
  jobs: JobSummary[];
  next_cursor: string | null;
}

export interface Tool {
  id: string;
  name: string;
  credits: number;
  unit: string;
  available: boolean;
  endpoint: string;
}

export interface Account {
  id: string;
  name: string;
  api_access: boolean;
  restricted_until: string | null;
  paid_credits: number;
  /** Cut-outs completing with an uncertainty at or above it are flagged for review. */
  review_threshold: number;
  created_at: string;
}

export interface LedgerEntry {
  id: string;
  kind: string;
  amount: number;
  credits?: number;
  job_id: string | null;
  reason?: string | null;
  balance_after?: number;
  created_at: string;
}

export interface UsageCounts {
  credits_used: number;
  results_completed: number;
  results_failed: number;
}

export interface Usage {
  from: string;
  to: string;
  totals: UsageCounts;
  by_day: (UsageCounts & { date: string })[];
  by_tool: (UsageCounts & { tool: string })[];
}

export interface DeliveryAttempt {
  number: number;
  outcome: string;
  status_code: number | null;
  error: string | null;
  started_at: string;
  duration_ms: number;
  next_attempt_at: string | null;
}

export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  job_id: string;
  url: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  created_at: string;
  completed_at: string | null;
  attempt_log: DeliveryAttempt[];
}

export interface Preset {
  id: string;
  name: string;
  channel: string;
  operation: string;
  credits: number;
}

export const JOB_STATUSES = ['queued', 'processing', 'completed', 'partially_completed', 'failed', 'cancelled'];
export const TOOL_IDS = [
  'remove_background',
  'image_editing',
  'image_ai_edit',
  'ai_background',
  'image_generation',
  'ad_creative',
];

export interface AccountListItem extends Account {
  active_keys: number;
}

export interface AccountList {
  accounts: AccountListItem[];
  next_cursor: string | null;
}

export interface Overview {
  generated_at: string;
  queues: {
    name: string;
    waiting: number;
    active: number;
    delayed: number;
    failed: number;
    oldest_waiting_seconds: number | null;
  }[];
  results_per_minute: { minute: string; completed: number; failed: number }[];
  failures_by_code: { code: string; count: number }[];
  workers: { name: string; addresses: string[]; queues: string[] }[];
}
