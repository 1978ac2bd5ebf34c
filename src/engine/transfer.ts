import * as workerThreads from 'node:worker_threads';
import { types } from 'node:util';
import { Piscina } from 'piscina';

/**
 * What crosses between the worker's main thread and the engine's threads. Pixel buffers cross by
 * transfer (the memory changes owner, nothing is copied) wherever V8 can detach them: buffers
 * allocated in JavaScript can be; libvips' output buffers are external memory that V8 cannot
 * detach, and Node sends a copy of those instead (one memcpy, a few milliseconds for 12 MP).
 */

/** Node 21 and later can say which buffers are marked untransferable; Node 20 skips them itself. */
const isMarkedAsUntransferable = (workerThreads as { isMarkedAsUntransferable?: (value: object) => boolean })
  .isMarkedAsUntransferable;

/** The distinct buffers behind every typed array in `value` (objects and arrays walked), for a transfer list. */
export function transferablesOf(value: unknown): ArrayBuffer[] {
  const found = new Set<ArrayBuffer>();
  walk(value, (view) => {
    const buffer = view.buffer;
    if (types.isSharedArrayBuffer(buffer) || isMarkedAsUntransferable?.(buffer)) return view;
    found.add(buffer);
    return view;
  });
  return [...found];
}

/**
 * `value` with each Uint8Array that arrived from another thread made a Buffer again (the same
 * memory, no copy): structured cloning keeps the bytes of a Buffer but not its class, and the
 * pixel code reads RawImage.data as a Buffer.
 */
export function revived<T>(value: T): T {
  return walk(value, (view) =>
    types.isUint8Array(view) && !Buffer.isBuffer(view)
      ? Buffer.from(view.buffer, view.byteOffset, view.byteLength)
      : view,
  ) as T;
}

/** Applies `visit` to every typed array in plain objects and arrays, rebuilding them only where something changed. */
function walk(value: unknown, visit: (view: ArrayBufferView) => ArrayBufferView): unknown {
  if (ArrayBuffer.isView(value)) return visit(value);
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item: unknown) => {
      const next = walk(item, visit);
      changed ||= next !== item;
      return next;
    });
    return changed ? items : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const next = walk(item, visit);
    changed ||= next !== item;
    return [key, next] as const;
  });
  return changed ? Object.fromEntries(entries) : value;
}

/** A thread's answer as piscina sends it back: `result` with the buffers behind its typed arrays transferred. */
export function movedResult(result: unknown): unknown {
  // piscina's protocol for a result with several transferables: the value and the list, under its symbols.
  const movable = { [Piscina.transferableSymbol]: transferablesOf(result), [Piscina.valueSymbol]: result };
  return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]);
}
