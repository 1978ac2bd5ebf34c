import type { SourceImage } from '../../src/core/image/source-image';
import { INLINE_ENGINE } from '../../src/engine/pixel-engine';
import { NO_HINTS } from '../../src/engine/mask/subject-hints';
import type { PipelineLimits } from '../../src/modules/tools/shared/pipeline-limits';
import type { ResultChoices, ToolContext } from '../../src/modules/tools/shared/tool-steps';
import { DEFAULT_FILE_CHOICES } from '../../src/modules/tools/tool-runner';

/** A tool's context as the frame builds it, with inline pixel steps and a signal that never aborts unless given one. */
export function toolContext<R, D, S extends SourceImage | null>(
  request: R,
  source: S,
  dependencies: D,
  options: { choices?: Partial<ResultChoices>; limits?: Partial<PipelineLimits>; signal?: AbortSignal } = {},
): ToolContext<R, D, S> {
  const signal = options.signal ?? options.limits?.signal ?? new AbortController().signal;
  return {
    request,
    source,
    dependencies,
    signal,
    limits: { maxPixels: 50_000_000, timeoutSeconds: 60, engine: INLINE_ENGINE, ...options.limits, signal },
    choices: {
      variant: 0,
      hints: NO_HINTS,
      output: { format: 'png', file: DEFAULT_FILE_CHOICES },
      carried: null,
      ...options.choices,
    },
  };
}

/** An edit's context: the limits given, and the result's choices (png, the first variant, no hints unless given). */
export function editContext<R, D>(
  request: R,
  source: SourceImage,
  dependencies: D,
  limits: Partial<PipelineLimits> = {},
  choices: Partial<ResultChoices> = {},
): ToolContext<R, D, SourceImage> {
  return toolContext(request, source, dependencies, { limits, choices });
}
