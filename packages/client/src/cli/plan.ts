import { canonicalJson, sha256Hex } from './canonical';
import type { ToolRequest } from './tool-requests';

/** The most images one create request may carry, and so the most results of a job here (spec 2.3 and 8). */
export const MAX_IMAGES_PER_JOB = 20;

/** A source as the plan sees it: its bytes' hash, and its label (the output stem), sent as `external_id`. */
export interface SourceItem {
  contentHash: string;
  externalId: string;
}

/** One planned job: its idempotency key, its images in body order, and what became of it. */
export interface PlannedJob {
  key: string;
  generation: number;
  items: SourceItem[];
  /** The created job's id; null until its create has answered. */
  jobId: string | null;
  /** Labels of the items whose result failed in that job, to be retried by a later job. */
  failed: string[];
}

/** What the state file remembers of one command with one set of options. */
export interface RunPlan {
  /** Each planning that adds jobs takes the next generation, so a retried image gets a new key. */
  nextGeneration: number;
  jobs: PlannedJob[];
}

export const itemId = (item: SourceItem): string => `${item.contentHash}:${item.externalId}`;

/** What a run is: the command and its options, never the images (those are in each job's key). */
export const runFingerprint = (request: ToolRequest): string =>
  sha256Hex(canonicalJson({ command: request.command, endpoint: request.endpoint, options: request.options }));

/**
 * The Idempotency-Key of a job: a hash of the run, the generation and the job's images in body
 * order, so running the same command on the same files again asks for the same jobs and the
 * service replays them instead of charging twice.
 */
export const jobKey = (fingerprint: string, generation: number, items: readonly SourceItem[]): string =>
  `image-jobs:${sha256Hex(canonicalJson({ version: 1, run: fingerprint, generation, items }))}`;

/**
 * The Idempotency-Key of an upload: a hash of the bytes' hash alone, so the same file uploaded by
 * any run of this key (even one whose state file was lost) is the same upload, and the job bodies
 * that name it are the same bodies, replayed rather than refused. `replacing` names an upload of
 * the key that is about to expire, for a new one in its place.
 */
export const uploadKey = (contentHash: string, replacing?: string): string =>
  `image-jobs-upload:${sha256Hex(canonicalJson({ version: 1, content: contentHash, replacing }))}`;

const byContent = (a: SourceItem, b: SourceItem): number => {
  const first = a.contentHash.localeCompare(b.contentHash);
  return first !== 0 ? first : a.externalId.localeCompare(b.externalId);
};

/** Splits items into jobs of at most `size`, sorted by content hash so a set always splits the same way. */
export function groupItems(items: readonly SourceItem[], size: number): SourceItem[][] {
  if (!Number.isInteger(size) || size < 1 || size > MAX_IMAGES_PER_JOB) {
    throw new RangeError(`a job holds 1 to ${MAX_IMAGES_PER_JOB} images, not ${size}`);
  }
  const sorted = [...items].sort(byContent);
  const groups: SourceItem[][] = [];
  for (let start = 0; start < sorted.length; start += size) groups.push(sorted.slice(start, start + size));
  return groups;
}

export interface PlanInput {
  previous: RunPlan;
  /** Every source named on the command line. */
  sources: readonly SourceItem[];
  /** The ids of the sources whose result is already written. */
  written: ReadonlySet<string>;
  fingerprint: string;
  batchSize: number;
}

/**
 * The jobs this run works on. A remembered job keeps its key and images as long as one of its
 * images still waits for a result it has not failed, so an interrupted run resumes the very jobs
 * it had planned or created (a create that answered before the interruption is only read again;
 * one that did not is sent again with the same key and body, and replayed). A remembered job
 * without an id whose images are no longer all on the command line is dropped (its body could
 * not be rebuilt). Waiting images that no kept job covers, new ones and failed ones, go into new
 * jobs of the next generation.
 */
export function planRun({ previous, sources, written, fingerprint, batchSize }: PlanInput): {
  plan: RunPlan;
  work: PlannedJob[];
} {
  const present = new Set(sources.map(itemId));
  const waiting = new Set([...present].filter((id) => !written.has(id)));
  const kept: PlannedJob[] = [];
  const work: PlannedJob[] = [];
  const covered = new Set<string>();
  for (const job of previous.jobs) {
    const rebuildable = job.jobId !== null || job.items.every((item) => present.has(itemId(item)));
    const open = job.items.filter((item) => waiting.has(itemId(item)) && !job.failed.includes(item.externalId));
    if (!rebuildable) continue;
    kept.push(job);
    if (open.length === 0) continue;
    work.push(job);
    for (const item of open) covered.add(itemId(item));
  }
  const uncovered = sources.filter((item) => waiting.has(itemId(item)) && !covered.has(itemId(item)));
  const unique = [...new Map(uncovered.map((item) => [itemId(item), item])).values()];
  const generation = previous.nextGeneration;
  const added = groupItems(unique, batchSize).map((items): PlannedJob => ({
    key: jobKey(fingerprint, generation, items),
    generation,
    items,
    jobId: null,
    failed: [],
  }));
  return {
    plan: { nextGeneration: added.length > 0 ? generation + 1 : generation, jobs: [...kept, ...added] },
    work: [...work, ...added],
  };
}
