import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65535);
const positiveInt = z.coerce.number().int().min(1);
/** Signature V4, which presigned S3 URLs use, refuses an expiry beyond 7 days. */
const MAX_PRESIGNED_URL_SECONDS = 7 * 24 * 3600;
const nonNegativeInt = z.coerce.number().int().min(0);
const DEFAULT_SHUTDOWN_DRAIN_SECONDS = 5;
/** The cores this process may use (its CPU affinity), which heavy work is sized to by default. */
const CORES = availableParallelism();

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .min(1)
    .refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    )
    .optional();

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** A host name, an IP address or an IP range in CIDR notation. */
const allowlistEntry = z.string().refine((entry) => {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  if (bits === undefined) return isIP(address) !== 0 || /^[a-z0-9.-]+$/i.test(address);
  const family = isIP(address);
  const prefix = Number(bits);
  return family !== 0 && Number.isInteger(prefix) && prefix >= 0 && prefix <= (family === 4 ? 32 : 128);
}, 'must be a host name, an IP address or a CIDR range');

/** What TRUST_PROXY takes instead of trusting every hop. */
const TRUST_PROXY_ADVICE =
  'give the number of proxies in front of the service (a hop count such as 1) or their addresses or CIDRs ' +
  '(loopback, linklocal and uniquelocal name the private ranges)';
const TRUST_EVERY_HOP =
  'trust every entry of X-Forwarded-For, and any client can write entries to choose its own address';
/** proxy-addr's names for reserved ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** Why one TRUST_PROXY entry cannot name a proxy, or null when it can. */
function proxyEntryProblem(entry: string): string | null {
  if (PROXY_RANGE_NAMES.includes(entry)) return null;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0 || (bits !== undefined && !/^[0-9]+$/.test(bits))) {
    return 'is not an IP address, a CIDR, loopback, linklocal or uniquelocal';
  }
  if (bits === undefined) return null;
  const prefix = Number(bits);
  if (prefix > (family === 4 ? 32 : 128)) return 'has a prefix length beyond the address';
  return prefix === 0 ? `holds every address, so it would ${TRUST_EVERY_HOP}` : null;
}

/** A segmentation model's name: it is part of a queue's name and of a price's cost key. */
export const MODEL_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const modelName = z.string().regex(MODEL_NAME_PATTERN, 'lower-case letters, digits and . _ - only, up to 63');

const commaList = <T extends z.ZodType>(item: T) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part.length > 0),
    )
    // Each part is a string; a coerced number's schema takes any input.
    .pipe(z.array(item as unknown as z.ZodType<z.output<T>, string>));

/**
 * Every setting the service reads. Names are the operator's interface (contract section 14);
 * the process validates them once at start and nothing else reads `process.env`.
 */
export const configSettings = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Used when the role is not given on the command line. */
  ROLE: z.enum(['api', 'worker', 'all']).optional(),
  PORT: port.default(3000),
  /** Processes of the api role sharing PORT, to use several cores in one container or host. */
  API_PROCESSES: positiveInt.max(64).default(1),
  /**
   * Which proxies' X-Forwarded-For to believe for the client address of per-IP limits: false
   * (none), a hop count, or comma-separated addresses and CIDRs (Express's "trust proxy").
   * Trusting every hop is refused: X-Forwarded-For is written by the client first, so any client
   * could then choose its own address, escaping its limits or spending a victim's.
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .default('false')
    .transform((value, context): false | number | string[] => {
      if (value === 'false') return false;
      if (/^[0-9]+$/.test(value)) return Number(value);
      if (value === 'true') {
        context.addIssue({ code: 'custom', message: `true would ${TRUST_EVERY_HOP}; ${TRUST_PROXY_ADVICE}` });
        return z.NEVER;
      }
      const entries = value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part.length > 0);
      for (const entry of entries) {
        const problem = proxyEntryProblem(entry);
        if (problem) context.addIssue({ code: 'custom', message: `${entry} ${problem}; ${TRUST_PROXY_ADVICE}` });
      }
      return entries;
    }),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  DATABASE_POOL_SIZE: positiveInt.max(200).default(10),
  DATABASE_MIGRATE_ON_START: booleanFlag.prefault('true'),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]{1,40}$/i, 'must be 1 to 40 letters, digits, "_" or "-"')
    .default('imgjobs'),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Reads `/metrics` (the API's, and a worker's health port's) and nothing else, so scrapers need no admin token. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  PUBLIC_BASE_URL: optionalUrl(['http:', 'https:']),
  /** Where result files live: a local folder every API and worker shares, or an S3-compatible bucket. */
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  STORAGE_DIR: z.string().min(1).default('./data/results'),
  S3_BUCKET: z.string().min(1).optional(),
  /** An S3-compatible server's URL (MinIO, Ceph, R2...); unset, AWS S3 in S3_REGION. */
  S3_ENDPOINT: optionalUrl(['http:', 'https:']),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Unset, the AWS SDK's default credential chain (instance role, environment, profile). */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Bucket in the path (`endpoint/bucket/key`) rather than the host name, as most self-hosted servers need. */
  S3_FORCE_PATH_STYLE: booleanFlag.prefault('false'),
  /**
   * What result URLs point at: `api`, the API's own signed, expiring URLs (it streams the file
   * from storage), or `presigned`, presigned S3 URLs that clients download from the bucket directly.
   */
  RESULT_URLS: z.enum(['api', 'presigned']).default('api'),
  /** Result files and thumbnails are deleted this many days after their result finished. */
  RESULT_RETENTION_DAYS: positiveInt.max(3650).default(30),
  /** An uploaded source can be used this long after its upload; the retention sweep then deletes it. */
  UPLOAD_RETENTION_HOURS: positiveInt.max(24 * 365).default(24),
  /** How long a signed result or thumbnail URL works (contract section 13: 7 days). */
  RESULT_URL_TTL_SECONDS: positiveInt.max(365 * 24 * 3600).default(7 * 24 * 3600),
  /** HMAC key for result URLs; unset, a secret generated once and kept in PostgreSQL is shared by every instance. */
  RESULT_URL_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  EMBEDDED_POSTGRES_PORT: port.default(54329),
  OUTBOUND_ALLOWLIST: commaList(allowlistEntry).prefault(''),
  WEBHOOK_RETRY_SCHEDULE: commaList(
    z.coerce
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600),
  )
    .refine((delays) => delays.length > 0, 'must list at least one delay')
    .prefault('0,5,300,1800,7200,18000,36000,36000'),
  /** A delivery attempt that has not answered in this time has failed (contract section 11: 15 s). */
  WEBHOOK_TIMEOUT_SECONDS: positiveInt.max(120).default(15),
  /** How long a rotated webhook secret keeps signing beside the new one (24 h). */
  WEBHOOK_SECRET_OVERLAP_SECONDS: nonNegativeInt.max(30 * 24 * 3600).default(24 * 3600),
  /** Deliveries one account may have in flight in one worker, so a slow receiver cannot hold every slot. */
  WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: positiveInt.max(1000).default(16),
  /** Events, their deliveries and attempts older than this are deleted once nothing is pending. */
  WEBHOOK_RETENTION_DAYS: positiveInt.max(3650).default(30),
  LIMIT_CREATES_PER_HOUR_KEY: positiveInt.default(5),
  LIMIT_CREATES_PER_HOUR_ACCOUNT: positiveInt.default(10),
  LIMIT_CREATES_PER_HOUR_IP: positiveInt.default(50),
  LIMIT_POLLS_PER_HOUR_KEY: positiveInt.default(120),
  LIMIT_POLLS_PER_HOUR_ACCOUNT: positiveInt.default(240),
  LIMIT_POLLS_PER_HOUR_IP: positiveInt.default(1200),
  /**
   * `POST /uploads` per window. A key's default covers its creates' worth of sources (5 creates
   * of 20 images an hour); account 2x and IP 10x, as for the other limits.
   */
  LIMIT_UPLOADS_PER_HOUR_KEY: positiveInt.default(100),
  LIMIT_UPLOADS_PER_HOUR_ACCOUNT: positiveInt.default(200),
  LIMIT_UPLOADS_PER_HOUR_IP: positiveInt.default(1000),
  /** Failed API-key authentications per client IP per window; beyond it a wrong key gets 429, a valid one passes. */
  LIMIT_FAILED_AUTH_PER_HOUR_IP: positiveInt.default(100),
  /** Failed ADMIN_TOKEN and METRICS_TOKEN attempts per client IP per window (admin API, Bull Board, /metrics). */
  LIMIT_FAILED_ADMIN_AUTH_PER_HOUR_IP: positiveInt.default(20),
  /**
   * Event streams (`GET /api/v1/events`) one API key may hold open at once on one API process;
   * beyond it, 429. A browser console needs one per tab.
   */
  LIVE_EVENTS_MAX_STREAMS_PER_KEY: positiveInt.max(1000).default(5),
  /** Seconds between the heartbeat comments of an event stream, which keep proxies from closing an idle one. */
  LIVE_EVENTS_HEARTBEAT_SECONDS: positiveInt.max(300).default(15),
  /** Length of the sliding window of every rate limit and failed-authentication limit (per hour by default). */
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.max(86_400).default(3600),
  LIMIT_ACTIVE_JOBS_PER_KEY: positiveInt.default(1),
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: positiveInt.default(2),
  CAPACITY_MAX_PENDING_RESULTS: positiveInt.default(200),
  CAPACITY_ACCOUNT_SHARE: z.coerce.number().gt(0).max(1).default(0.25),
  RESULT_ATTEMPTS: positiveInt.max(20).default(3),
  /** Which queues a worker process consumes, so background removal can scale apart. */
  WORKER_QUEUES: commaList(
    z.enum(['background-removal', 'processing', 'sandbox', 'webhook-delivery', 'maintenance']),
  ).prefault('background-removal,processing,sandbox,webhook-delivery,maintenance'),
  /**
   * Heavy results (cut-outs; edits, generations, scenes and ads) run at once per queue: one per
   * core by default, so on 2 cores a worker does not interleave sixteen heavy results and starve
   * its own event loop; the rest wait in the queue, where another worker can take them. Raise
   * PROCESSING where results mostly wait on the image provider.
   */
  WORKER_CONCURRENCY_BACKGROUND_REMOVAL: positiveInt.max(256).default(CORES),
  WORKER_CONCURRENCY_PROCESSING: positiveInt.max(256).default(CORES),
  /** Sandbox results only write a small generated image (or wait, for `sandbox_slow`). */
  WORKER_CONCURRENCY_SANDBOX: positiveInt.max(256).default(16),
  WORKER_CONCURRENCY_WEBHOOKS: positiveInt.max(1024).default(64),
  /**
   * A running task's queue lock, renewed every half of it while its worker lives: a worker whose
   * event loop stalls for less than half of it keeps its work. A dead worker's work is taken over
   * by a stalled check after its lock lapses: checks run at most once an interval across all the
   * workers (BullMQ skips one that comes while another's is fresh), so it can be the second check
   * after, and the takeover comes at most lock + twice the check after the worker died (18 s).
   */
  WORKER_LOCK_SECONDS: positiveInt.max(3600).default(10),
  WORKER_STALLED_CHECK_SECONDS: positiveInt.max(3600).default(4),
  WORKER_MAX_STALLED: nonNegativeInt.max(20).default(1),
  SWEEP_INTERVAL_SECONDS: positiveInt.max(3600).default(30),
  SWEEP_GRACE_SECONDS: positiveInt.max(86_400).default(60),
  SANDBOX_SLOW_SECONDS: nonNegativeInt.max(600).default(10),
  /** One deadline for a whole source download, redirects included (issue: 20 s). */
  SOURCE_FETCH_TIMEOUT_SECONDS: positiveInt.max(300).default(20),
  /** Largest source download, enforced while streaming (25 MiB). */
  SOURCE_MAX_BYTES: positiveInt.max(1024 * 1024 * 1024).default(25 * 1024 * 1024),
  /** Largest decoded source, refused from its header before any pixel is decoded (50 megapixels). */
  SOURCE_MAX_MEGAPIXELS: positiveInt.max(500).default(50),
  /** Memory for downloaded sources kept briefly so the variants of one source download it once. */
  SOURCE_CACHE_MEGABYTES: nonNegativeInt.max(4096).default(128),
  /** Longest one attempt at a result may take before it fails with `timeout`. */
  RESULT_TIMEOUT_SECONDS: positiveInt.max(3600).default(120),
  /** libvips threads per image pipeline; the worker runs several pipelines at once. */
  IMAGE_PIPELINE_THREADS: positiveInt.max(64).default(1),
  /**
   * Threads of the image engine (the tools' pixel steps written in JavaScript), one per core by
   * default; 0 runs them on the worker's event loop, for debugging only.
   */
  ENGINE_THREADS: nonNegativeInt.max(64).default(CORES),
  /** Nice value added to the engine's threads: on a busy machine the event loop and libvips are scheduled first. */
  ENGINE_THREAD_NICE: nonNegativeInt.max(19).default(5),
  /** Decoded source pixels a worker holds at once; further results wait, so memory stays bounded. */
  IMAGE_MEMORY_BUDGET_MEGAPIXELS: positiveInt.max(10_000).default(150),
  /**
   * Who cuts subjects out: `local` (the ISNet model on this worker's CPU), `remote` (an HTTP
   * service at SEGMENTER_URL) or `none` (background removal unavailable).
   */
  SEGMENTER: z.enum(['local', 'remote', 'none']).default('local'),
  /** The remote segmenter: it receives a PNG and answers the subject's mask as an image. */
  SEGMENTER_URL: optionalUrl(['http:', 'https:']),
  SEGMENTER_TIMEOUT_SECONDS: positiveInt.max(600).default(30),
  /**
   * The remote segmenter's model as cut-outs report it (`segmentation.model`, with version null:
   * its answer says nothing of the model). Name the service's model so a client can tell its cut-outs apart.
   */
  SEGMENTER_MODEL: z
    .string()
    .regex(/^[\w.@/:+-]{1,100}$/, 'letters, digits and . _ - @ / : + only, up to 100')
    .default('remote'),
  /** The local model's square input side, in pixels; 768 was the smallest that lost no thin product detail. */
  SEGMENTATION_INPUT_SIZE: z.coerce.number().int().min(320).max(1024).multipleOf(32).default(768),
  /** Threads of the one inference session per worker; inferences in one process run one at a time. */
  SEGMENTATION_THREADS: positiveInt.max(64).default(2),
  /**
   * Manifests (JSON files next to their weights) of the models an operator brings, beside the
   * shipped ISNet (`isnet-general-use`); see docs/operating.md "Segmentation models".
   */
  SEGMENTATION_MODELS: commaList(z.string().min(1)).prefault(''),
  /** The model a request that names none is cut out with. */
  SEGMENTATION_DEFAULT_MODEL: modelName.default('isnet-general-use'),
  /**
   * onnxruntime's execution providers, tried in order: a provider that is not available refuses
   * start unless `cpu` follows it. `cuda` and `tensorrt` need onnxruntime-node's GPU libraries.
   */
  SEGMENTATION_PROVIDERS: commaList(z.enum(['cpu', 'cuda', 'tensorrt']))
    .prefault('cpu')
    .refine((providers) => providers.length > 0, 'names at least one provider'),
  /**
   * The models this worker loads and serves (their queues); empty, every configured model. A
   * worker that consumes `background-removal` must serve the default model.
   */
  WORKER_MODELS: commaList(modelName).prefault(''),
  /**
   * Who enlarges for `upscale`: `local` (the slim ESRGAN super-resolution models on this
   * worker's CPU) or `none` (live upscale results fail without being charged).
   */
  UPSCALER: z.enum(['local', 'none']).default('local'),
  /** Threads of the upscaler's inference sessions per worker; tiles in one process run one at a time. */
  UPSCALER_THREADS: positiveInt.max(64).default(2),
  /** Where the prepared models are kept; unset, `<DATA_DIR>/models`. */
  MODELS_DIR: z.string().min(1).optional(),
  /**
   * Who paints generated pixels (AI edits, generated scenes and images): `openai`, any server
   * speaking the OpenAI images API at IMAGE_PROVIDER_BASE_URL, or `none` (those tools are
   * unavailable to live keys, except where a local mode is enabled).
   */
  IMAGE_PROVIDER: z.enum(['openai', 'none']).default('none'),
  IMAGE_PROVIDER_BASE_URL: optionalUrl(['http:', 'https:']),
  IMAGE_PROVIDER_API_KEY: z.string().min(1).optional(),
  IMAGE_PROVIDER_MODEL: z.string().min(1).default('gpt-image-1'),
  /** Longest one provider call may take, retries included. */
  IMAGE_PROVIDER_TIMEOUT_SECONDS: positiveInt.max(600).default(120),
  /** Retries of one provider call after a 429 or 5xx, each after the provider's Retry-After. */
  IMAGE_PROVIDER_MAX_RETRIES: nonNegativeInt.max(10).default(2),
  /**
   * Lets `ai_background` run without a provider on built-in studio backdrops (seamless paper,
   * soft gradients, a floor with a horizon), named as such in the catalog.
   */
  STUDIO_BACKDROPS: booleanFlag.prefault('false'),
  AUTH_CACHE_TTL_SECONDS: nonNegativeInt.max(300).default(30),
  WORKER_HEALTH_PORT: port.default(3001),
  /**
   * After SIGTERM, how long the API keeps serving (readiness answering 503, every response with
   * `Connection: close`) so load balancers stop routing to it before it stops accepting. Unset,
   * 5 s, or a third of a grace period shorter than 15 s (a worker's setting need not fit the API).
   */
  SHUTDOWN_DRAIN_SECONDS: nonNegativeInt.max(300).optional(),
  /** Longest shutdown after the first SIGTERM, drain included; past it the process exits with code 1. */
  SHUTDOWN_GRACE_SECONDS: positiveInt.max(600).default(15),
  DEMO_ACCOUNT_CREDITS: nonNegativeInt.default(1000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Longest wait for a row or advisory lock in the service's PostgreSQL sessions (0: no limit).
   * A transaction cut short by it is run again a few times, then answered as an error, rather
   * than letting requests pile up behind one stuck lock. Migrations are not subject to it.
   */
  DATABASE_LOCK_TIMEOUT_MS: nonNegativeInt.max(600_000).default(5000),
  /** Longest any one statement of the service may run (0: no limit); migrations are not subject to it. */
  DATABASE_STATEMENT_TIMEOUT_MS: nonNegativeInt.max(3_600_000).default(30_000),
});

/** The settings validated together: cross-setting rules, then the values derived from others. */
export const configSchema = configSettings
  .superRefine((env, context) => {
    if (env.SHUTDOWN_DRAIN_SECONDS !== undefined && env.SHUTDOWN_DRAIN_SECONDS >= env.SHUTDOWN_GRACE_SECONDS) {
      context.addIssue({
        code: 'custom',
        path: ['SHUTDOWN_DRAIN_SECONDS'],
        message: `must be less than SHUTDOWN_GRACE_SECONDS (${env.SHUTDOWN_GRACE_SECONDS}), which includes the drain`,
      });
    }
    if (env.METRICS_TOKEN !== undefined && env.METRICS_TOKEN === env.ADMIN_TOKEN) {
      context.addIssue({
        code: 'custom',
        path: ['METRICS_TOKEN'],
        message: 'must differ from ADMIN_TOKEN: a scraper holding it must not be able to use the admin API',
      });
    }
    if (env.SEGMENTER === 'remote' && !env.SEGMENTER_URL) {
      context.addIssue({ code: 'custom', path: ['SEGMENTER_URL'], message: 'is required when SEGMENTER is remote' });
    }
    const takesDefaultModelWork = env.WORKER_QUEUES.some(
      (queue) => queue === 'background-removal' || queue === 'processing',
    );
    if (
      env.SEGMENTER === 'local' &&
      env.WORKER_MODELS.length > 0 &&
      takesDefaultModelWork &&
      !env.WORKER_MODELS.includes(env.SEGMENTATION_DEFAULT_MODEL)
    ) {
      context.addIssue({
        code: 'custom',
        path: ['WORKER_MODELS'],
        message:
          `must include the default model ${env.SEGMENTATION_DEFAULT_MODEL} on a worker that consumes ` +
          'background-removal or processing: their queues carry every result that names no model',
      });
    }
    if (env.STORAGE_DRIVER === 's3' && !env.S3_BUCKET) {
      context.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE_DRIVER is s3' });
    }
    if (env.RESULT_URLS === 'presigned' && env.STORAGE_DRIVER !== 's3') {
      context.addIssue({ code: 'custom', path: ['RESULT_URLS'], message: 'presigned needs STORAGE_DRIVER=s3' });
    }
    if (env.RESULT_URLS === 'presigned' && env.RESULT_URL_TTL_SECONDS > MAX_PRESIGNED_URL_SECONDS) {
      context.addIssue({
        code: 'custom',
        path: ['RESULT_URL_TTL_SECONDS'],
        message:
          `must be at most ${MAX_PRESIGNED_URL_SECONDS} (7 days) with RESULT_URLS=presigned: S3 ` +
          `refuses longer presigned URLs`,
      });
    }
    if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
      context.addIssue({
        code: 'custom',
        path: ['S3_SECRET_ACCESS_KEY'],
        message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together',
      });
    }
    if (env.IMAGE_PROVIDER === 'openai' && !env.IMAGE_PROVIDER_API_KEY) {
      context.addIssue({
        code: 'custom',
        path: ['IMAGE_PROVIDER_API_KEY'],
        message: 'is required when IMAGE_PROVIDER is openai',
      });
    }
  })
  .transform((env) => ({
    ...env,
    PUBLIC_BASE_URL: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    MODELS_DIR: env.MODELS_DIR ?? join(env.DATA_DIR, 'models'),
    SHUTDOWN_DRAIN_SECONDS:
      env.SHUTDOWN_DRAIN_SECONDS ??
      Math.min(DEFAULT_SHUTDOWN_DRAIN_SECONDS, Math.floor(env.SHUTDOWN_GRACE_SECONDS / 3)),
  }));

export type AppConfig = z.infer<typeof configSchema>;
