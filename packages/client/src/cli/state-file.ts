import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from './canonical';
import type { RunPlan } from './plan';

/** The state file's name, in the output folder beside the results it describes. */
export const STATE_FILE_NAME = '.image-jobs-state.json';

/** An uploaded source: create bodies name it by this URL until it expires. */
export interface UploadRecord {
  imageUrl: string;
  expiresAt: string;
}

/** A written result: which source and which job's result it is. */
export interface OutputRecord {
  contentHash: string;
  run: string;
  jobId: string;
  resultId: string;
}

/**
 * What a run remembers between invocations, so that running it again after an interruption
 * pays for nothing twice. Uploads and plans are kept per service and key (`scope`, a hash of
 * both, never the key itself), since an upload or a job of one key means nothing to another.
 */
export interface RunState {
  version: 1;
  uploads: Record<string, Record<string, UploadRecord>>;
  runs: Record<string, RunPlan>;
  outputs: Record<string, OutputRecord>;
}

export const emptyState = (): RunState => ({ version: 1, uploads: {}, runs: {}, outputs: {} });

/** A short hash of the base URL and the API key: where the state keeps that key's uploads and jobs. */
export const stateScope = (baseUrl: string, apiKey: string): string => sha256Hex(`${baseUrl}\n${apiKey}`).slice(0, 16);

export class StateFileError extends Error {}

export async function loadState(folder: string): Promise<RunState> {
  const path = join(folder, STATE_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<RunState>;
    if (parsed.version !== 1) throw new Error(`version ${String(parsed.version)} is not 1`);
    return { ...emptyState(), ...parsed, version: 1 };
  } catch (error) {
    throw new StateFileError(
      `${path} cannot be read (${(error as Error).message}); move it away to start afresh ` +
        '(results already paid for may then be paid again)',
    );
  }
}

/**
 * Writes the state after each change, one write at a time, each to a temporary file renamed over
 * the old one: a run killed at any moment leaves either the previous state or the new one.
 */
export class StateWriter {
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly folder: string,
    readonly state: RunState,
  ) {}

  save(): Promise<void> {
    const snapshot = JSON.stringify(this.state, null, 1);
    const path = join(this.folder, STATE_FILE_NAME);
    const temporary = `${path}.${process.pid}.tmp`;
    this.pending = this.pending.then(async () => {
      await writeFile(temporary, snapshot);
      await rename(temporary, path);
    });
    return this.pending;
  }
}
