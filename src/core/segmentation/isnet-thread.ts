import type { RawImage } from '../image/raw-image';
import { movedResult, revived } from '../../engine/transfer';
import type { PreparedModel } from './isnet-model';
import { IsnetSession, type ProbabilityResult } from './isnet-session';

/** What the segmentation thread is asked to do. */
export type IsnetTask =
  ({ kind: 'open' } & IsnetSettings) | ({ kind: 'probability'; image: RawImage } & IsnetSettings) | { kind: 'release' };

/** The session a task needs: every task that runs the model names it, so a replaced thread opens it again. */
export interface IsnetSettings {
  model: PreparedModel;
  intraOpThreads: number;
}

/** A tiny image run once after the session opens, so the first real result does not pay for first-run allocations. */
const WARM_UP_IMAGE: RawImage = { data: Buffer.alloc(64 * 64 * 3, 200), width: 64, height: 64, channels: 3 };

/** The thread's one session: onnxruntime-node runs a model on the thread that calls it, so it lives here. */
let session: Promise<IsnetSession> | null = null;

/** The session, opened and warmed on first need; a failed opening is forgotten, so the next task tries again. */
function opened(settings: IsnetSettings): Promise<IsnetSession> {
  session ??= (async () => {
    const opening = await IsnetSession.open(settings.model, { intraOpThreads: settings.intraOpThreads });
    await opening.probability(WARM_UP_IMAGE);
    return opening;
  })().catch((error: unknown) => {
    session = null;
    throw error;
  });
  return session;
}

/**
 * The segmentation model's thread. onnxruntime-node's `run` holds its calling thread until the
 * inference ends (its intra-op threads only share the work), so a session on the worker's main
 * thread would stall its event loop for the whole inference; in this thread it stalls nothing.
 */
export default async function runIsnetTask(task: IsnetTask): Promise<unknown> {
  switch (task.kind) {
    case 'open':
      await opened(task);
      return null;
    case 'probability': {
      const result: ProbabilityResult = await (await opened(task)).probability(revived(task.image));
      return movedResult(result);
    }
    case 'release': {
      const released = session;
      session = null;
      await (await released)?.release();
      return null;
    }
  }
}
