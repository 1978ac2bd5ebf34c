import type { Job } from 'bullmq';
import type { WebhookMetrics } from '../../../core/metrics/webhook.metrics';
import type { QueueJobName, QueuePayloads } from '../../../core/queue/queue-jobs';
import type { DeliverySlots } from '../delivery-slots';
import type { AttemptRecord, DeliveryForAttempt, WebhookDeliveriesRepository } from '../webhook-deliveries.repository';
import type { ScheduledAttempt, WebhookDeliveryQueue } from '../webhook-delivery.queue';
import { DeliveryStatus } from '../webhook.entities';
import type { WebhookSecretsService } from '../webhook-secrets.service';
import type { SendOutcome, WebhookSender } from '../webhook-sender';
import { JobPostponed } from '../../../core/queue/queue-worker';
import { WebhookDeliveryService } from './webhook-delivery.service';

type DeliveryJob = Job<QueuePayloads[QueueJobName.DeliverWebhook]>;

const pending: DeliveryForAttempt = {
  id: 'delivery-1',
  status: DeliveryStatus.Pending,
  attempts: 0,
  url: 'https://hooks.example/1',
  accountId: 'acc-1',
  eventId: 'event-1',
  body: '{"id":"event-1"}',
  secrets: ['whsec_current'],
  waitsForEarlierEvents: false,
};

const entry = (attempt: number) => ({ data: { deliveryId: 'delivery-1', accountId: 'acc-1', attempt } }) as DeliveryJob;

describe(WebhookDeliveryService.name, () => {
  let delivery: DeliveryForAttempt | undefined;
  let outcome: SendOutcome;
  let recorded: AttemptRecord[];
  let scheduled: ScheduledAttempt[];
  let sent: number;
  /** False: another entry for the same attempt recorded it first. */
  let firstToRecord: boolean;
  /** The account's slots this worker has free, and how many are taken now. */
  let freeSlots: number;
  let slotsTaken: number;
  let service: WebhookDeliveryService;

  beforeEach(() => {
    delivery = { ...pending };
    outcome = { kind: 'response', statusCode: 200 };
    recorded = [];
    scheduled = [];
    sent = 0;
    firstToRecord = true;
    freeSlots = 1;
    slotsTaken = 0;
    const store = {
      findForAttempts: async (ids: readonly string[]) => ids.map(() => delivery),
      recordAttempts: async (records: readonly AttemptRecord[]) => {
        recorded.push(...records);
        return new Set(firstToRecord ? records.map((record) => record.deliveryId) : []);
      },
    } as unknown as WebhookDeliveriesRepository;
    const sender = { send: async () => (sent++, outcome) } as unknown as WebhookSender;
    const secrets = { current: async () => 'whsec_new' } as unknown as WebhookSecretsService;
    const slots = {
      take: () => {
        if (slotsTaken >= freeSlots) return false;
        slotsTaken++;
        return true;
      },
      release: () => void slotsTaken--,
    } as unknown as DeliverySlots;
    const queue = {
      maxAttempts: 3,
      delayBefore: () => 60_000,
      enqueue: async (attempts: ScheduledAttempt[]) => void scheduled.push(...attempts),
    } as unknown as WebhookDeliveryQueue;
    const metrics = { attempted: jest.fn(), finishedDelivery: jest.fn() } as unknown as WebhookMetrics;
    service = new WebhookDeliveryService(store, sender, secrets, slots, queue, metrics);
  });

  it('records a delivered attempt and schedules nothing more', async () => {
    await service.perform(entry(1));
    expect(recorded).toEqual([
      expect.objectContaining({
        deliveryId: 'delivery-1',
        attempt: 1,
        verdict: expect.objectContaining({ status: DeliveryStatus.Delivered }),
      }),
    ]);
    expect(scheduled).toEqual([]);
  });

  it('schedules the next attempt of a failed one while attempts are left', async () => {
    outcome = { kind: 'response', statusCode: 500 };
    // One instant for the verdict and the delay: the delay is the schedule's, to the millisecond.
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-11-29T12:00:00Z'));
    try {
      await service.perform(entry(1));
    } finally {
      now.mockRestore();
    }
    expect(scheduled).toEqual([expect.objectContaining({ deliveryId: 'delivery-1', attempt: 2, delayMs: 60_000 })]);
  });

  it('gives up after the last attempt', async () => {
    outcome = { kind: 'response', statusCode: 500 };
    delivery = { ...pending, attempts: 2 };
    await service.perform(entry(3));
    expect(recorded[0].verdict.status).toBe(DeliveryStatus.Failed);
    expect(scheduled).toEqual([]);
  });

  it('sends nothing for a queue entry the delivery is no longer waiting for', async () => {
    delivery = { ...pending, attempts: 1 };
    await service.perform(entry(1));
    delivery = { ...pending, status: DeliveryStatus.Delivered };
    await service.perform(entry(1));
    delivery = undefined;
    await service.perform(entry(1));
    expect(sent).toBe(0);
    expect(recorded).toEqual([]);
  });

  it('schedules nothing when a repeated entry loses the record of its attempt', async () => {
    outcome = { kind: 'response', statusCode: 500 };
    firstToRecord = false;
    await service.perform(entry(1));
    expect(scheduled).toEqual([]);
  });

  it('postpones a delivery whose account has no free slot, sending and recording nothing', async () => {
    freeSlots = 0;
    await expect(service.perform(entry(1))).rejects.toEqual(new JobPostponed(100));
    expect(sent).toBe(0);
    expect(recorded).toEqual([]);
  });

  it("postpones a delivery that waits for its job's earlier events, and gives its slot back", async () => {
    delivery = { ...pending, waitsForEarlierEvents: true };
    await expect(service.perform(entry(1))).rejects.toEqual(new JobPostponed(100));
    expect(slotsTaken).toBe(0);
    expect(sent).toBe(0);
    expect(recorded).toEqual([]);
  });
});
