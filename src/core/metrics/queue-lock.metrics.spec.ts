import { Registry } from 'prom-client';
import { QueueLockMetrics } from './queue-lock.metrics';

/** Every series of the registry as `name{label="value",...} value`, the way a scrape shows them. */
async function series(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe(QueueLockMetrics.name, () => {
  let registry: Registry;
  let metrics: QueueLockMetrics;

  beforeEach(() => {
    registry = new Registry();
    metrics = new QueueLockMetrics(registry);
  });

  it('exports no series until a worker watches a queue', async () => {
    expect(await series(registry)).toEqual([]);
  });

  it("creates a watched queue's series at 0, the repeated attempts only for a result queue", async () => {
    metrics.watchQueue('webhook-delivery');
    metrics.watchQueue('processing');
    metrics.watchResultQueue('processing');
    expect((await series(registry)).sort()).toEqual(
      [
        'imgjobs_queue_lock_renewal_failures_total{queue="webhook-delivery"} 0',
        'imgjobs_queue_lock_renewal_failures_total{queue="processing"} 0',
        'imgjobs_queue_stalled_total{queue="webhook-delivery"} 0',
        'imgjobs_queue_stalled_total{queue="processing"} 0',
        'imgjobs_queue_finish_lock_errors_total{queue="webhook-delivery",reason="lock_mismatch"} 0',
        'imgjobs_queue_finish_lock_errors_total{queue="webhook-delivery",reason="lock_missing"} 0',
        'imgjobs_queue_finish_lock_errors_total{queue="processing",reason="lock_mismatch"} 0',
        'imgjobs_queue_finish_lock_errors_total{queue="processing",reason="lock_missing"} 0',
        'imgjobs_result_attempts_repeated_total{queue="processing",reason="stalled"} 0',
        'imgjobs_result_attempts_repeated_total{queue="processing",reason="retried"} 0',
        'imgjobs_result_attempts_repeated_total{queue="processing",reason="handed_back"} 0',
      ].sort(),
    );
  });

  it('counts renewal failures per job, stalls, refused outcomes and repeated attempts', async () => {
    metrics.watchQueue('processing');
    metrics.watchResultQueue('processing');
    metrics.lockRenewalsFailed('processing', 2);
    metrics.lockRenewalsFailed('processing', 0);
    metrics.lockRenewalsFailed('processing', 1);
    metrics.jobStalled('processing');
    metrics.finishRefused('processing', 'lock_missing');
    metrics.finishRefused('processing', 'lock_missing');
    metrics.finishRefused('processing', 'lock_mismatch');
    metrics.attemptRepeated('processing', 'stalled');
    metrics.attemptRepeated('sandbox', 'retried');
    expect(await series(registry)).toEqual(
      expect.arrayContaining([
        'imgjobs_queue_lock_renewal_failures_total{queue="processing"} 3',
        'imgjobs_queue_stalled_total{queue="processing"} 1',
        'imgjobs_queue_finish_lock_errors_total{queue="processing",reason="lock_missing"} 2',
        'imgjobs_queue_finish_lock_errors_total{queue="processing",reason="lock_mismatch"} 1',
        'imgjobs_result_attempts_repeated_total{queue="processing",reason="stalled"} 1',
        'imgjobs_result_attempts_repeated_total{queue="processing",reason="retried"} 0',
        'imgjobs_result_attempts_repeated_total{queue="sandbox",reason="retried"} 1',
      ]),
    );
  });
});
