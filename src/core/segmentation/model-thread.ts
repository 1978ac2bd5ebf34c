import type { RawImage } from '../../engine/raw-image';
import { applyParentLibvipsSettings } from '../../engine/thread-module';
import { movedResult, revived } from '../../engine/transfer';
import type { ProviderName } from './execution-providers';
import { openVerifiedModel, type ModelPlan } from './model-checks';
import type { ModelSession, ProbabilityResult } from './model-session';

// The model's input preparation loaded sharp, which reset libvips' process-wide settings.
applyParentLibvipsSettings();

/** What the segmentation thread is asked to do. */
export type ModelTask =
  ({ kind: 'open' } & ModelSettings) | ({ kind: 'probability'; image: RawImage } & ModelSettings) | { kind: 'release' };

/** The session a task needs: every task that runs a model names it, so a replaced thread opens it again. */
export interface ModelSettings {
  plan: ModelPlan;
  intraOpThreads: number;
  providers: ProviderName[];
}

/** What opening a model came to, for the log. */
export interface OpenedModel {
  provider: ProviderName;
  warnings: string[];
}

interface OpenSession {
  session: ModelSession;
  opened: OpenedModel;
}

/**
 * The thread's sessions, one per served model: onnxruntime-node runs a model on the thread that
 * calls it, so they live here. They share the thread, so two models' inferences run one after the other.
 */
const sessions = new Map<string, Promise<OpenSession>>();

/** A model's session, checked and opened on first need; a failed opening is forgotten, so the next task tries again. */
function opened(settings: ModelSettings): Promise<OpenSession> {
  const name = settings.plan.manifest.name;
  let session = sessions.get(name);
  if (!session) {
    session = openVerifiedModel(settings.plan, settings).then(({ session, provider, warnings }) => ({
      session,
      opened: { provider, warnings },
    }));
    session.catch(() => sessions.delete(name));
    sessions.set(name, session);
  }
  return session;
}

/**
 * The segmentation models' thread. onnxruntime-node's `run` holds its calling thread until the
 * inference ends (its intra-op threads only share the work), so a session on the worker's main
 * thread would stall its event loop for the whole inference; in this thread it stalls nothing.
 */
export default async function runModelTask(task: ModelTask): Promise<unknown> {
  switch (task.kind) {
    case 'open':
      return (await opened(task)).opened;
    case 'probability': {
      const { session } = await opened(task);
      const result: ProbabilityResult = await session.probability(revived(task.image));
      return movedResult(result);
    }
    case 'release': {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(
        open.map((session) =>
          session.then(
            ({ session }) => session.release(),
            () => undefined,
          ),
        ),
      );
      return null;
    }
  }
}
