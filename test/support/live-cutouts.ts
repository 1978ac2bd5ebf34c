import { ProcessRole } from '../../src/core/bootstrap/role';
import type { FakeSegmentationService } from './fake-segmentation-service';
import type { ImageSourceServer } from './image-source-server';
import { GENEROUS_LIMITS } from './limits';
import { createTestApp, type TestApp } from './test-app';

/**
 * A test app running the API and one worker in a process, whose live cut-outs are made by
 * `segmentation` behind `server` (its `/segment`), reading sources from `server` too. Every case
 * of a spec creates from one address, so the per-address hourly create limit is raised.
 */
export function liveCutoutApp(
  server: ImageSourceServer,
  segmentation: FakeSegmentationService,
  config: Record<string, string> = {},
): Promise<TestApp> {
  server.route('/segment', segmentation.handle);
  return createTestApp(
    {
      ...GENEROUS_LIMITS,
      CAPACITY_ACCOUNT_SHARE: '1',
      SEGMENTER: 'remote',
      SEGMENTER_URL: server.url('/segment'),
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      LIMIT_CREATES_PER_HOUR_IP: '1000',
      ...config,
    },
    { role: ProcessRole.All },
  );
}

/**
 * A test app running the API and one worker in a process, whose live cut-outs are made by the
 * local model (two at a time, each allowed 300 s on a busy machine), its sources on loopback.
 */
export function localModelApp(): Promise<TestApp> {
  return createTestApp(
    {
      ...GENEROUS_LIMITS,
      CAPACITY_ACCOUNT_SHARE: '1',
      SEGMENTER: 'local',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      WORKER_CONCURRENCY_BACKGROUND_REMOVAL: '2',
      RESULT_TIMEOUT_SECONDS: '300',
    },
    { role: ProcessRole.All },
  );
}
