import { ENGINE_OPERATIONS, type OperationName } from './operations';
import { applyParentLibvipsSettings } from './thread-module';
import { movedResult, revived } from './transfer';

// The operations loaded sharp, which reset libvips' process-wide settings.
applyParentLibvipsSettings();

/** One operation as the pool sends it to a thread. */
export interface EngineTask {
  name: OperationName;
  args: unknown[];
}

/**
 * A thread of the engine's pool runs this for each task: the operation on the pixels it was
 * sent, its result's buffers transferred back to the worker's main thread.
 */
export default async function runEngineTask({ name, args }: EngineTask): Promise<unknown> {
  const operation = ENGINE_OPERATIONS[name] as ((...args: unknown[]) => unknown) | undefined;
  if (!operation) throw new Error(`The image engine has no operation "${name}"`);
  const result = await operation(...revived(args));
  return movedResult(result);
}
