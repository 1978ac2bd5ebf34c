import type { z } from 'zod';
import type { configSettings } from './config.schema';

/**
 * What each setting means, for people: the source of docs/configuration.md (`npm run
 * docs:config` writes it; a unit spec fails when the file differs). Data only: validation is
 * `configSchema`'s alone. `default` is the default as a reader should see it, where the schema's
 * own default is computed (cores), derived from another setting or absent; otherwise the
 * schema's default is shown.
 */
export interface SettingDoc {
  readonly description: string;
  readonly default?: string;
}

/** One entry per setting of the schema: a setting without one fails to compile. */
export const CONFIG_DOCS: { readonly [Name in keyof z.input<typeof configSettings>]-?: SettingDoc } = {
  NODE_ENV: { description: '`development`, `production` or `test`' },
  ROLE: { description: 'role when none is given on the command line', default: '`all`' },
  PORT: { description: 'HTTP port of the API' },
  API_PROCESSES: { description: 'processes of the `api` role sharing `PORT`, to use several cores per host' },
  TRUST_PROXY: {
    description:
      'whose `X-Forwarded-For` gives the client address for per-IP limits: `false` (none: the socket address), the ' +
      "number of proxies in front of the service (`1` behind one load balancer), or the proxies' IPs/CIDRs " +
      '(`loopback`, `linklocal`, `uniquelocal` too); `true` is refused, since clients write the first entries ' +
      '([operating.md](operating.md#client-addresses-behind-proxies))',
  },
  DATABASE_URL: {
    description: 'PostgreSQL connection',
    default: 'embedded PostgreSQL for `npm start`; required for `api` and `worker`',
  },
  DATABASE_POOL_SIZE: { description: 'connections per process' },
  DATABASE_MIGRATE_ON_START: { description: 'apply pending migrations at start' },
  REDIS_URL: { description: 'Redis connection', default: '`redis://127.0.0.1:6379`' },
  REDIS_KEY_PREFIX: { description: 'prefix of every Redis key (queues, limits, caches)' },
  ADMIN_TOKEN: {
    description:
      'admin API and Bull Board token (16+ characters); unset disables both. Also reads `/metrics`, for scrapers ' +
      'set up before `METRICS_TOKEN`',
  },
  METRICS_TOKEN: {
    description:
      "token that reads `/metrics` and nothing else (16+ characters, not `ADMIN_TOKEN`); when set, a worker's " +
      'health port asks for it on `/metrics` too',
  },
  PUBLIC_BASE_URL: {
    description: 'origin used in `result_url`, `thumbnail_url` and `source_preview_url`',
    default: '`http://localhost:$PORT`',
  },
  STORAGE_DRIVER: {
    description:
      'where result images and thumbnails live: `local` (a folder every API and worker shares) or `s3` (an ' +
      'S3-compatible bucket; processes then share no folder)',
  },
  STORAGE_DIR: {
    description:
      'with `STORAGE_DRIVER=local`, the folder results are written to (by workers) and served from (by the API)',
  },
  S3_BUCKET: { description: 'with `STORAGE_DRIVER=s3`, the bucket (required)' },
  S3_ENDPOINT: { description: 'URL of an S3-compatible server (MinIO, Ceph, R2…); unset, AWS S3 in `S3_REGION`' },
  S3_REGION: { description: "the bucket's region" },
  S3_ACCESS_KEY_ID: {
    description:
      "credentials, with `S3_SECRET_ACCESS_KEY` (both or neither); unset, the AWS SDK's default chain " +
      '(instance or task role, environment, profile)',
  },
  S3_SECRET_ACCESS_KEY: {
    description:
      "credentials, with `S3_ACCESS_KEY_ID` (both or neither); unset, the AWS SDK's default chain " +
      '(instance or task role, environment, profile)',
  },
  S3_FORCE_PATH_STYLE: {
    description:
      'bucket in the path (`endpoint/bucket/key`) rather than the host name, as most self-hosted servers need',
  },
  RESULT_URLS: {
    description:
      'what `result_url`, `thumbnail_url` and `source_preview_url` point at: ' +
      "`api` (the API's signed URLs; it streams from storage) or `presigned` (presigned S3 URLs; needs " +
      '`STORAGE_DRIVER=s3` and `RESULT_URL_TTL_SECONDS` ≤ 604800)',
  },
  RESULT_RETENTION_DAYS: {
    description: 'result images and thumbnails are deleted this many days after their result completed',
  },
  UPLOAD_RETENTION_HOURS: { description: 'an upload can be used this long, then the retention sweep deletes it' },
  RESULT_URL_TTL_SECONDS: { description: 'lifetime of a signed result or thumbnail URL' },
  RESULT_URL_SECRET: {
    description: 'HMAC key of result URLs (32+ characters); unset, one is generated and kept in PostgreSQL',
  },
  DATA_DIR: {
    description:
      'embedded PostgreSQL (see the [README](../README.md#two-commands) for root) and the development admin token',
  },
  EMBEDDED_POSTGRES_PORT: { description: 'port of the embedded PostgreSQL' },
  OUTBOUND_ALLOWLIST: {
    description:
      'hosts or CIDRs that customer URLs (sources, background photos, webhooks) may reach although private; ' +
      'operator destinations (`SEGMENTER_URL`, `IMAGE_PROVIDER_BASE_URL`) need no entry',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    description: 'seconds before each webhook delivery attempt (the first counts from the event)',
  },
  WEBHOOK_TIMEOUT_SECONDS: { description: 'deadline of one delivery attempt' },
  WEBHOOK_SECRET_OVERLAP_SECONDS: { description: 'how long a rotated webhook secret keeps signing' },
  WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: { description: 'deliveries one account may have in flight in one worker' },
  WEBHOOK_RETENTION_DAYS: { description: 'how long events, deliveries and attempts are kept' },
  LIMIT_CREATES_PER_HOUR_KEY: {
    description: 'create rate limit per API key (job creates and `POST /jobs/{id}/cancel`)',
  },
  LIMIT_CREATES_PER_HOUR_ACCOUNT: {
    description: 'create rate limit per account (job creates and `POST /jobs/{id}/cancel`)',
  },
  LIMIT_CREATES_PER_HOUR_IP: {
    description: 'create rate limit per client IP (job creates and `POST /jobs/{id}/cancel`)',
  },
  LIMIT_POLLS_PER_HOUR_KEY: {
    description: '`GET /jobs`, `GET /jobs/{id}` and `GET /product-image-enhancements/{id}` limit per API key',
  },
  LIMIT_POLLS_PER_HOUR_ACCOUNT: {
    description: '`GET /jobs`, `GET /jobs/{id}` and `GET /product-image-enhancements/{id}` limit per account',
  },
  LIMIT_POLLS_PER_HOUR_IP: {
    description: '`GET /jobs`, `GET /jobs/{id}` and `GET /product-image-enhancements/{id}` limit per client IP',
  },
  LIMIT_UPLOADS_PER_HOUR_KEY: { description: '`POST /uploads` per window per API key, refused uploads included' },
  LIMIT_UPLOADS_PER_HOUR_ACCOUNT: {
    description: '`POST /uploads` per window per account, refused uploads included',
  },
  LIMIT_UPLOADS_PER_HOUR_IP: { description: '`POST /uploads` per window per client IP, refused uploads included' },
  LIMIT_FAILED_AUTH_PER_HOUR_IP: {
    description:
      'failed API-key authentications per client IP per window; beyond it a wrong key gets 429, ' +
      'a valid key still passes',
  },
  LIMIT_FAILED_ADMIN_AUTH_PER_HOUR_IP: {
    description:
      'failed `ADMIN_TOKEN`/`METRICS_TOKEN` attempts per client IP per window (admin API, Bull Board, `/metrics`); ' +
      'beyond it a wrong token gets 429, the right one still passes',
  },
  LIVE_EVENTS_MAX_STREAMS_PER_KEY: {
    description: 'event streams (`GET /api/v1/events`) one API key may hold open on one API process, then 429',
  },
  LIVE_EVENTS_HEARTBEAT_SECONDS: { description: 'seconds between the heartbeat comments of an event stream' },
  RATE_LIMIT_WINDOW_SECONDS: {
    description: 'length of the sliding window of the create, poll, upload and failed-authentication limits',
  },
  LIMIT_ACTIVE_JOBS_PER_KEY: { description: 'queued or processing jobs per API key' },
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: { description: 'queued or processing jobs per account' },
  CAPACITY_MAX_PENDING_RESULTS: { description: 'pending results per capacity group' },
  CAPACITY_ACCOUNT_SHARE: { description: 'fraction of a group one account may hold' },
  RESULT_ATTEMPTS: { description: 'attempts per result before it fails' },
  WORKER_QUEUES: { description: 'queues a worker consumes' },
  WORKER_CONCURRENCY_BACKGROUND_REMOVAL: {
    description: 'parallel jobs per worker on the `background-removal` queue',
    default: 'cores',
  },
  WORKER_CONCURRENCY_PROCESSING: {
    description: 'parallel jobs per worker on the `processing` queue',
    default: 'cores',
  },
  WORKER_CONCURRENCY_SANDBOX: { description: 'parallel jobs per worker on the `sandbox` queue' },
  WORKER_CONCURRENCY_WEBHOOKS: { description: 'parallel jobs per worker on the `webhook-delivery` queue' },
  WORKER_LOCK_SECONDS: {
    description:
      "a running task's queue lock, renewed every half of it, so a worker whose event loop stalls for less " +
      "than that keeps its work; a dead worker's tasks are taken over within lock + twice " +
      '`WORKER_STALLED_CHECK_SECONDS` (18 s) after it died (7.9 to 16.0 s measured, `npm run bench:takeover`)',
  },
  WORKER_STALLED_CHECK_SECONDS: { description: 'how often workers look for the tasks of a dead worker' },
  WORKER_MAX_STALLED: { description: 'how often a task may stall before it fails' },
  SWEEP_INTERVAL_SECONDS: { description: 'how often stranded results and deliveries are looked for' },
  SWEEP_GRACE_SECONDS: { description: 'how late stranded results and deliveries must be to be swept' },
  SANDBOX_SLOW_SECONDS: { description: 'how long a `sandbox_slow` result takes' },
  SOURCE_FETCH_TIMEOUT_SECONDS: { description: 'one deadline for a source download, redirects included' },
  SOURCE_MAX_BYTES: {
    description: 'largest source download, enforced while streaming; also the largest upload',
    default: '`26214400` (25 MiB)',
  },
  SOURCE_MAX_MEGAPIXELS: { description: 'largest decoded source, refused from its header' },
  SOURCE_CACHE_MEGABYTES: {
    description: 'memory a worker keeps sources in for a minute, so variants download once (0: off)',
  },
  RESULT_TIMEOUT_SECONDS: {
    description: 'longest one attempt at a result may take before it fails with `timeout`',
  },
  IMAGE_PIPELINE_THREADS: { description: 'libvips threads per image pipeline' },
  ENGINE_THREADS: {
    description:
      "threads of the image engine, where the tools' JavaScript pixel steps run (0: on the event loop, for " +
      'debugging only)',
    default: 'cores',
  },
  ENGINE_THREAD_NICE: {
    description: "added to the engine threads' nice value, so the event loop and libvips are scheduled first",
  },
  IMAGE_MEMORY_BUDGET_MEGAPIXELS: { description: 'decoded source pixels a worker works on at once' },
  SEGMENTER: { description: 'who cuts subjects out: `local`, `remote` or `none`' },
  SEGMENTER_URL: {
    description:
      'the remote segmentation service (required with `SEGMENTER=remote`); reached at any address, private ' +
      'included, without `OUTBOUND_ALLOWLIST`, and never opened to customer URLs by being set',
  },
  SEGMENTER_TIMEOUT_SECONDS: { description: "the remote segmentation service's deadline" },
  SEGMENTER_MODEL: {
    description:
      "the remote service's model as cut-outs report it in `segmentation.model` (its `version` is null: the " +
      "service's answer does not say)",
    default: '`remote`',
  },
  SEGMENTATION_INPUT_SIZE: { description: "side of the local model's square input (multiple of 32, 320–1024)" },
  SEGMENTATION_THREADS: { description: "threads of the worker's one inference session" },
  SEGMENTATION_MODELS: {
    description: 'manifest files of the segmentation models an operator brings (comma-separated)',
  },
  SEGMENTATION_DEFAULT_MODEL: { description: 'the model a request that names none is cut out with' },
  SEGMENTATION_PROVIDERS: { description: 'onnxruntime execution providers in order: `cpu`, `cuda`, `tensorrt`' },
  WORKER_MODELS: { description: 'the segmentation models this worker loads and serves; empty, all of them' },
  UPSCALER: {
    description:
      "who enlarges for `upscale`: `local` (the super-resolution models on the worker's CPU) or `none` " +
      '(live upscales fail, uncharged)',
  },
  UPSCALER_THREADS: {
    description: "threads of the upscaler's inference sessions per worker (tiles run one at a time)",
  },
  MODELS_DIR: {
    description: 'where the prepared models (segmentation, super-resolution) are kept',
    default: '`<DATA_DIR>/models`',
  },
  IMAGE_PROVIDER: {
    description: 'who paints generated pixels: `openai` (any OpenAI-compatible images API) or `none`',
  },
  IMAGE_PROVIDER_BASE_URL: {
    description:
      "the provider's API root; reached at any address, private included, without `OUTBOUND_ALLOWLIST`, as " +
      'are image URLs on its origin (image URLs elsewhere are judged as customer URLs)',
    default: '`https://api.openai.com/v1`',
  },
  IMAGE_PROVIDER_API_KEY: { description: "the provider's key (required with `openai`)" },
  IMAGE_PROVIDER_MODEL: { description: "the provider's model" },
  IMAGE_PROVIDER_TIMEOUT_SECONDS: { description: 'one deadline per provider call, retries included' },
  IMAGE_PROVIDER_MAX_RETRIES: { description: 'retries after a 429 or 5xx' },
  STUDIO_BACKDROPS: { description: '`ai_background` without a provider, on built-in studio backdrops' },
  AUTH_CACHE_TTL_SECONDS: {
    description: 'how long an API-key lookup is cached (revocation is immediate regardless)',
  },
  WORKER_HEALTH_PORT: { description: "the worker's health port" },
  SHUTDOWN_DRAIN_SECONDS: {
    description:
      'after SIGTERM, how long the API keeps serving with readiness 503 and `Connection: close` before it ' +
      'stops accepting (less than `SHUTDOWN_GRACE_SECONDS`; 0: no drain)',
    default: '`5` (unset with a grace under 15 s: a third of it)',
  },
  SHUTDOWN_GRACE_SECONDS: {
    description:
      "longest shutdown after the first SIGTERM, the API's drain included; past it the process exits with code 1",
  },
  DEMO_ACCOUNT_CREDITS: { description: 'credits of the demo account `npm start` creates' },
  LOG_LEVEL: { description: '`fatal` … `trace`, or `silent`' },
  DATABASE_LOCK_TIMEOUT_MS: {
    description:
      'longest wait for a row or advisory lock in a service session (`lock_timeout`; 0 = none); a ' +
      'transaction aborted by it, by a deadlock or by a serialization failure is run again up to 2 times ' +
      '(3 runs in all); migrations are exempt',
  },
  DATABASE_STATEMENT_TIMEOUT_MS: {
    description:
      'longest run of one statement in a service session (`statement_timeout`; 0 = none); migrations are exempt',
  },
};
