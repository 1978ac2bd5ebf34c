import { ENGINE_OPERATIONS, type OperationArgs, type OperationName, type OperationResult } from './operations';

/**
 * Runs the image engine's operations. The worker's engine is a pool of threads, so its event loop
 * only orchestrates (queue locks, sandbox results and webhooks never wait behind pixels);
 * `InlineEngine` runs them on the calling thread, for specs and tools run outside the service.
 */
export interface PixelEngine {
  /**
   * Resolves with the operation's result. `giving` lists arguments whose pixel buffers the
   * caller gives up: they are transferred, not copied, and read as empty afterwards here, so
   * the caller must use only what comes back.
   */
  run<Name extends OperationName>(
    name: Name,
    args: OperationArgs<Name>,
    giving?: readonly unknown[],
  ): Promise<OperationResult<Name>>;
}

/** A PixelEngine on the calling thread: the same functions, no thread between. */
export class InlineEngine implements PixelEngine {
  async run<Name extends OperationName>(name: Name, args: OperationArgs<Name>): Promise<OperationResult<Name>> {
    const operation = ENGINE_OPERATIONS[name] as unknown as (
      ...args: OperationArgs<Name>
    ) => OperationResult<Name> | Promise<OperationResult<Name>>;
    return operation(...args);
  }
}

/** One engine on the calling thread is enough for a whole process: it holds nothing. */
export const INLINE_ENGINE: PixelEngine = new InlineEngine();
