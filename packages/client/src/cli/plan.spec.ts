import { describe, expect, it } from '@jest/globals';
import { groupItems, itemId, jobKey, planRun, runFingerprint, type SourceItem } from './plan';
import { editRequest, removeBackgroundRequest } from './tool-requests';

const item = (n: number): SourceItem => ({ contentHash: n.toString(16).padStart(64, '0'), externalId: `photo-${n}` });
const items = (count: number) => Array.from({ length: count }, (_, n) => item(n + 1));

describe('job planning', () => {
  it('splits images into jobs of at most 20, ordered by content hash whatever the order given', () => {
    const groups = groupItems([...items(45)].reverse(), 20);
    expect(groups.map((group) => group.length)).toEqual([20, 20, 5]);
    expect(groups.flat()).toEqual(items(45));
    expect(() => groupItems(items(3), 21)).toThrow(RangeError);
    expect(() => groupItems(items(3), 0)).toThrow(RangeError);
  });

  it('derives the same key from the same command, options and images, and another from any change', () => {
    const fingerprint = runFingerprint(editRequest({ width: 100, light: true }));
    const key = jobKey(fingerprint, 0, items(3));
    expect(key).toMatch(/^[A-Za-z0-9._:-]{8,160}$/);
    // Options written in another order are the same run.
    expect(runFingerprint(editRequest({ light: true, width: 100 }))).toBe(fingerprint);
    expect(jobKey(fingerprint, 0, items(3))).toBe(key);
    expect(jobKey(runFingerprint(editRequest({ width: 101, light: true })), 0, items(3))).not.toBe(key);
    expect(jobKey(runFingerprint(removeBackgroundRequest({})), 0, items(3))).not.toBe(key);
    expect(jobKey(fingerprint, 1, items(3))).not.toBe(key);
    expect(jobKey(fingerprint, 0, items(4))).not.toBe(key);
  });

  const fingerprint = 'f'.repeat(64);
  const fresh = { nextGeneration: 0, jobs: [] };

  it('plans the same jobs with the same keys from scratch for the same files', () => {
    const first = planRun({ previous: fresh, sources: items(25), written: new Set(), fingerprint, batchSize: 20 });
    const again = planRun({
      previous: fresh,
      sources: [...items(25)].reverse(),
      written: new Set(),
      fingerprint,
      batchSize: 20,
    });
    expect(first.work.map((job) => job.key)).toEqual(again.work.map((job) => job.key));
    expect(first.work.map((job) => job.items.length)).toEqual([20, 5]);
    expect(first.plan.nextGeneration).toBe(1);
  });

  it('resumes the jobs an interrupted run planned, created or not, and skips the written images', () => {
    const { plan } = planRun({ previous: fresh, sources: items(45), written: new Set(), fingerprint, batchSize: 20 });
    const [first, second, third] = plan.jobs;
    first.jobId = 'job-1';
    second.jobId = 'job-2';
    const written = new Set(first.items.map(itemId));
    const resumed = planRun({ previous: plan, sources: items(45), written, fingerprint, batchSize: 20 });
    expect(resumed.work).toEqual([second, third]);
    expect(resumed.plan.nextGeneration).toBe(1);
  });

  it('puts images that failed into a new job with a new key, leaving their old job alone', () => {
    const { plan } = planRun({ previous: fresh, sources: items(3), written: new Set(), fingerprint, batchSize: 20 });
    const [job] = plan.jobs;
    job.jobId = 'job-1';
    job.failed = ['photo-2'];
    const written = new Set([itemId(item(1)), itemId(item(3))]);
    const retry = planRun({ previous: plan, sources: items(3), written, fingerprint, batchSize: 20 });
    expect(retry.work).toHaveLength(1);
    expect(retry.work[0].items).toEqual([item(2)]);
    expect(retry.work[0].key).not.toBe(job.key);
    expect(retry.plan.jobs).toHaveLength(2);
  });

  it('drops a job never created whose images are no longer all given, and plans them afresh', () => {
    const { plan } = planRun({ previous: fresh, sources: items(3), written: new Set(), fingerprint, batchSize: 20 });
    const fewer = planRun({ previous: plan, sources: items(2), written: new Set(), fingerprint, batchSize: 20 });
    expect(fewer.work).toHaveLength(1);
    expect(fewer.work[0].items).toEqual(items(2));
    expect(fewer.work[0].key).not.toBe(plan.jobs[0].key);
  });
});
