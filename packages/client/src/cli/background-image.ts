import { readFile } from 'node:fs/promises';
import { sha256Hex } from './canonical';
import type { JobsApi } from './jobs-api';
import { uploadKey } from './plan';
import { UsageError } from './tool-requests';

const URL_SCHEMES = /^(https?|upload):\/\//i;

/**
 * `--background-image`: a URL (http, https or upload://) as it is, or a local file uploaded once
 * under the key its bytes make, so every run names the same upload and the job bodies stay the
 * same. A dry run uploads nothing: it only prices the run.
 */
export async function backgroundImageUrl(value: string, api: JobsApi, dryRun: boolean): Promise<string> {
  if (URL_SCHEMES.test(value) || dryRun) return value;
  const bytes = await readFile(value).catch((error: unknown) => {
    throw new UsageError(`--background-image ${value}: ${error instanceof Error ? error.message : String(error)}`);
  });
  return (await api.upload(bytes, value, uploadKey(sha256Hex(bytes)))).imageUrl;
}
