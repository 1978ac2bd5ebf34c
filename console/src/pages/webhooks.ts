import { errorMessage, query, request } from '../api.js';
import { button, errorBox, formatDate, h, table } from '../dom.js';
import type { Redelivery, WebhookDelivery, WebhookDeliveryList } from '../types.js';

/** The account's webhook deliveries with every attempt, and redelivery of an event. */
export function renderWebhooks(main: HTMLElement): void {
  const list = h('div', { 'aria-live': 'polite' }, h('p', {}, 'Loading…'));
  const status = h('div', { 'aria-live': 'polite' });
  let cursor: string | null = null;
  const deliveries: WebhookDelivery[] = [];

  const load = async (more: boolean) => {
    try {
      const page = await request<WebhookDeliveryList>(
        `/api/v1/webhook-deliveries${query({ limit: 20, cursor: more ? cursor : null })}`,
      );
      if (!more) deliveries.length = 0;
      deliveries.push(...page.deliveries);
      cursor = page.next_cursor;
      draw();
    } catch (error) {
      list.replaceChildren(errorBox(errorMessage(error)));
    }
  };

  const redeliver = (delivery: WebhookDelivery) => {
    status.replaceChildren(h('p', {}, 'Redelivering…'));
    request<Redelivery>(`/api/v1/webhook-events/${encodeURIComponent(delivery.event_id)}/redeliver`, {
      method: 'POST',
    })
      .then(({ delivery: created }) => {
        status.replaceChildren(
          h('p', { class: 'ok' }, `Event ${created.event_id} queued again as delivery ${created.id}.`),
        );
        // The new delivery's first attempt is made at once; read again when it has had a moment.
        void load(false);
        setTimeout(() => void load(false), 1500);
      })
      .catch((error: unknown) => status.replaceChildren(errorBox(errorMessage(error))));
  };

  const draw = () => {
    if (!deliveries.length) {
      list.replaceChildren(h('p', {}, 'No webhook deliveries yet: jobs created with a webhook_url show theirs here.'));
      return;
    }
    list.replaceChildren(
      ...deliveries.map((delivery) =>
        h(
          'section',
          { class: 'card delivery', 'data-delivery': delivery.id },
          h(
            'h2',
            {},
            `${delivery.event_type} `,
            h('span', { class: `status status-${delivery.status}` }, delivery.status),
          ),
          h('p', { class: 'mono wrap' }, `event ${delivery.event_id} → ${delivery.url}`),
          h(
            'p',
            {},
            `job ${delivery.job_id.slice(0, 8)} · created ${formatDate(delivery.created_at)}`,
            delivery.next_attempt_at ? ` · next attempt ${formatDate(delivery.next_attempt_at)}` : '',
          ),
          delivery.attempt_log.length
            ? table(
                ['#', 'Outcome', 'HTTP', 'Error', 'Started', 'Took'],
                delivery.attempt_log.map((attempt) => [
                  String(attempt.number),
                  attempt.outcome,
                  attempt.status_code == null ? '–' : String(attempt.status_code),
                  attempt.error ?? '',
                  formatDate(attempt.started_at),
                  `${attempt.duration_ms} ms`,
                ]),
                'Attempts',
              )
            : h('p', { class: 'muted' }, 'No attempt yet.'),
          button('Redeliver', () => redeliver(delivery), { 'aria-label': `Redeliver event ${delivery.event_id}` }),
        ),
      ),
      cursor ? button('More deliveries', () => void load(true)) : '',
    );
  };

  main.append(h('h1', {}, 'Webhooks'), status, list);
  void load(false);
}
