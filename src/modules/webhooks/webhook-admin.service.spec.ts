import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import type { AccountsRepository } from '../accounts/accounts.repository';
import { WebhookAdminService } from './webhook-admin.service';
import type { EventDestination, NewRedelivery, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import type { WebhookDeliveryQueue } from './webhook-delivery.queue';
import type { WebhookDelivery } from './webhook.entities';

const EVENT = 'event-1';
const OWNER = { accountId: 'account-1', sandbox: false };

describe(WebhookAdminService.name, () => {
  let destination: EventDestination | null;
  let unattempted: string | null;
  let inserted: NewRedelivery[];
  let enqueued: string[];
  let service: WebhookAdminService;

  beforeEach(() => {
    destination = { accountId: 'account-1', jobId: 'job-1', sandbox: false, webhookUrl: 'https://hooks.example.com/' };
    unattempted = null;
    inserted = [];
    enqueued = [];
    const store = {
      findEventDestination: async () => destination,
      findUnattempted: async () => unattempted,
      insertRedelivery: async (delivery: NewRedelivery) => void inserted.push(delivery),
      findWithAttempts: async (id: string) => ({ id }) as WebhookDelivery,
    } as unknown as WebhookDeliveriesRepository;
    const queue = {
      enqueueCommitted: async (deliveries: Array<{ id: string }>) =>
        void enqueued.push(...deliveries.map((delivery) => delivery.id)),
    } as unknown as WebhookDeliveryQueue;
    service = new WebhookAdminService(store, queue, {} as AccountsRepository);
  });

  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof DomainError ? error.code : error),
    );

  it('redelivers an owner’s event as a new delivery, queued at once', async () => {
    const delivery = await service.redeliverOwn(OWNER, EVENT);
    expect(inserted).toEqual([
      { id: delivery.id, eventId: EVENT, accountId: 'account-1', jobId: 'job-1', url: 'https://hooks.example.com/' },
    ]);
    expect(enqueued).toEqual([delivery.id]);
  });

  it('answers a repeat with the delivery still waiting for its first attempt, queuing nothing', async () => {
    unattempted = 'delivery-waiting';
    expect((await service.redeliverOwn(OWNER, EVENT)).id).toBe('delivery-waiting');
    expect(inserted).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('does not find an event of another account or environment, nor an unknown one', async () => {
    expect(await codeOf(service.redeliverOwn({ accountId: 'account-2', sandbox: false }, EVENT))).toBe(
      ErrorCode.NotFound,
    );
    expect(await codeOf(service.redeliverOwn({ accountId: 'account-1', sandbox: true }, EVENT))).toBe(
      ErrorCode.NotFound,
    );
    destination = null;
    expect(await codeOf(service.redeliverOwn(OWNER, EVENT))).toBe(ErrorCode.NotFound);
    expect(inserted).toEqual([]);
  });

  it('refuses an event whose job has no webhook URL', async () => {
    destination = { ...destination!, webhookUrl: null };
    expect(await codeOf(service.redeliverOwn(OWNER, EVENT))).toBe(ErrorCode.InvalidRequest);
    expect(await codeOf(service.redeliver(EVENT))).toBe(ErrorCode.InvalidRequest);
  });
});
