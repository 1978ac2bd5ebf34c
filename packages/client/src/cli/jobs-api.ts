import type { CreateEndpoint, ListedPrice } from './tool-requests';

/** Job statuses after which nothing changes (contract section 7). */
export const FINISHED_JOB_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  'partially_completed',
  'failed',
  'cancelled',
]);

/** One result of a job, as the command line reads it from `GET /jobs/{jobId}`. */
export interface ResultState {
  id: string;
  index: number;
  externalId: string | null;
  status: string;
  resultUrl: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  creditsUsed: number;
}

export interface JobState {
  id: string;
  status: string;
  results: ResultState[];
}

export interface UploadedSource {
  imageUrl: string;
  expiresAt: string;
}

/** A tool's catalog entry (`GET /tools`), the members a price needs. */
export interface CatalogPrice {
  id: string;
  credits: number;
  pricingVersion: number;
  /** Request options that price a job otherwise (the entry's `option_prices`); absent where none do. */
  optionPrices?: OptionPrice[];
}

/** A price a request option brings instead of the tool's own (`existing_alpha` `use`: the edit's). */
export interface OptionPrice {
  field: string;
  value: string;
  credits: number;
  pricingVersion: number;
}

export interface PresetEntry extends ListedPrice {
  id: string;
  name: string;
  operation: string;
  format: string;
  width: number | null;
  height: number | null;
}

/** What the command line needs of the service: the narrow face of `ImageJobsClient` it runs on. */
export interface JobsApi {
  /**
   * Uploads a source's bytes under `idempotencyKey` (the same key and bytes answer the same
   * upload); `fileName` only helps to tell its type when its bytes do not.
   */
  upload(bytes: Buffer, fileName: string, idempotencyKey: string): Promise<UploadedSource>;
  createJob(endpoint: CreateEndpoint, body: Record<string, unknown>, idempotencyKey: string): Promise<{ id: string }>;
  getJob(id: string): Promise<JobState>;
  download(url: string): Promise<Buffer>;
  catalog(): Promise<CatalogPrice[]>;
  presets(): Promise<PresetEntry[]>;
}

/**
 * A refusal or failure of one request, as the command line acts on it: an answer of the service
 * (status and contract code, Retry-After when it gave one) or no answer at all (`status` 0).
 */
export interface RequestFailure {
  status: number;
  code: string;
  message: string;
  retryAfterSeconds?: number;
  details?: Record<string, unknown>;
}

/** Thrown by a `JobsApi` when a request fails; `failure` says how. */
export class RequestFailedError extends Error {
  constructor(readonly failure: RequestFailure) {
    super(failure.message);
  }
}
