import { existsSync } from 'node:fs';
import path from 'node:path';
import { listSupportedBackends } from 'onnxruntime-node';
import type { AppConfig } from '../config/config.schema';

export type ProviderName = AppConfig['SEGMENTATION_PROVIDERS'][number];

/**
 * Why `provider` cannot run here, or null when it can. onnxruntime-node lists every provider its
 * build knows (`listSupportedBackends`), including the GPU ones whose libraries are not in the npm
 * package (`bundled: false`): its installer fetches those, and it is denied by default
 * (package.json allowScripts), so such a provider counts only when its library is beside the binding.
 */
export function unavailableReason(provider: ProviderName): string | null {
  const backend = listSupportedBackends().find(({ name }) => name === provider);
  if (!backend) return `onnxruntime-node on ${process.platform}/${process.arch} has no ${provider} provider`;
  if (backend.bundled) return null;
  const library = `libonnxruntime_providers_${provider}.so`;
  if (existsSync(path.join(bindingDir(), library))) return null;
  return (
    `onnxruntime-node's ${library} is not installed ` +
    `(its installer is denied by default; see docs/operating.md "On a GPU")`
  );
}

/** Where onnxruntime-node's native binding and its provider libraries are, for this platform. */
function bindingDir(): string {
  const main = require.resolve('onnxruntime-node');
  return path.join(path.dirname(main), '..', 'bin', 'napi-v6', process.platform, process.arch);
}

/** What opening on the configured providers came to: the provider used and why earlier ones were passed over. */
export interface ProviderOutcome<T> {
  opened: T;
  provider: ProviderName;
  /** One line per provider passed over for one later in the list (only ever when `cpu` follows it). */
  warnings: string[];
}

/**
 * Opens with the first of `providers` that is available and opens, in SEGMENTATION_PROVIDERS'
 * order. A provider that fails is passed over, with a warning, only when `cpu` comes after it:
 * a GPU that silently became a CPU would be a slower service nobody asked for. Otherwise the
 * failure is thrown, with the provider named.
 */
export async function openOnProviders<T>(
  providers: readonly ProviderName[],
  open: (provider: ProviderName) => Promise<T>,
  isUnavailable: (provider: ProviderName) => string | null = unavailableReason,
): Promise<ProviderOutcome<T>> {
  const warnings: string[] = [];
  for (const [index, provider] of providers.entries()) {
    const fallBack = providers.slice(index + 1).includes('cpu');
    const unavailable = isUnavailable(provider);
    if (unavailable !== null) {
      const problem = `execution provider ${provider} is not available: ${unavailable}`;
      if (!fallBack) throw new Error(problem);
      warnings.push(`${problem}; falling back along SEGMENTATION_PROVIDERS`);
      continue;
    }
    try {
      return { opened: await open(provider), provider, warnings };
    } catch (error) {
      const problem = `execution provider ${provider} could not open the model: ${(error as Error).message}`;
      if (!fallBack) throw new Error(problem, { cause: error });
      warnings.push(`${problem}; falling back along SEGMENTATION_PROVIDERS`);
    }
  }
  throw new Error(`none of SEGMENTATION_PROVIDERS (${providers.join(', ')}) could open the model`);
}
