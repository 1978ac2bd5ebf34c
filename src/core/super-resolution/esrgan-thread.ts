import type { RawImage } from '../../engine/raw-image';
import { movedResult, revived } from '../../engine/transfer';
import { prepareEsrganModel, type ModelScale } from './esrgan-model';
import { EsrganSession } from './esrgan-session';
import { tilingFor } from './tiling';
import { enlargeTiled } from './tiled-enlargement';

/** The models a task needs: every enlargement names them, so a replaced thread prepares and opens them again. */
export interface EsrganSettings {
  modelsDir: string;
  intraOpThreads: number;
}

/** What the super-resolution thread is asked to do. */
export type EsrganTask =
  | ({
      kind: 'enlarge';
      image: RawImage;
      scale: ModelScale;
      /** One Int32 set to 1 by the caller when the result is cancelled or out of time: checked before each tile. */
      stop: SharedArrayBuffer;
    } & EsrganSettings)
  | { kind: 'release' };

/** The thread's sessions, one per scale: onnxruntime-node runs a model on its calling thread, so they live here. */
const sessions = new Map<ModelScale, Promise<EsrganSession>>();

/** One scale's session, its model prepared and opened on first need; a failed opening is forgotten. */
function opened(scale: ModelScale, settings: EsrganSettings): Promise<EsrganSession> {
  let session = sessions.get(scale);
  if (!session) {
    session = (async () => {
      const model = await prepareEsrganModel({ modelsDir: settings.modelsDir, scale });
      return EsrganSession.open(model, { intraOpThreads: settings.intraOpThreads });
    })().catch((error: unknown) => {
      sessions.delete(scale);
      throw error;
    });
    sessions.set(scale, session);
  }
  return session;
}

/**
 * The super-resolution models' thread. onnxruntime-node's `run` holds its calling thread until
 * the inference ends, so a tile run on the worker's main thread would stall its event loop for
 * the tile; here a whole enlargement runs, tile by tile, one at a time for the process, and the
 * event loop only waits for it. A stop flag set by the caller ends it between two tiles.
 */
export default async function runEsrganTask(task: EsrganTask): Promise<unknown> {
  switch (task.kind) {
    case 'enlarge': {
      const session = await opened(task.scale, task);
      const stop = new Int32Array(task.stop);
      const result = await enlargeTiled(
        revived(task.image),
        task.scale,
        (tile, width, height) => {
          if (Atomics.load(stop, 0) === 1) throw new Error('The enlargement was stopped.');
          return session.enlarge(tile, width, height);
        },
        tilingFor(task.scale),
      );
      return movedResult(result);
    }
    case 'release': {
      const releasing = [...sessions.values()];
      sessions.clear();
      await Promise.all(releasing.map((session) => session.then((open) => open.release()).catch(() => undefined)));
      return null;
    }
  }
}
