import { download, errorMessage, query, request } from '../api.js';
import { button, errorBox, field, formatDate, h, select, table } from '../dom.js';
import { session } from '../session.js';
import type {
  Account,
  AccountList,
  AccountListItem,
  AccountResponse,
  CreateAccountRequest,
  CreatedApiKey,
  CreditChangeRequest,
  OperatorLedger,
  UpdateAccountRequest,
} from '../types.js';
import { renderOverview } from './operators-overview.js';

/** Accounts listed per page of a search. */
const ACCOUNT_PAGE = 20;

const admin = <T>(path: string, method = 'GET', body?: unknown) =>
  request<T>(`/admin/v1${path}`, { method, body, credential: 'admin' });

/** Operators: accounts, keys, credits, the service's overview and Bull Board, with the admin token. */
export function renderOperators(main: HTMLElement): void {
  if (!session.adminToken()) return signIn(main);
  if (location.hash === '#/operators/overview') return renderOverview(main, signOutButton(main));
  const status = h('div', { 'aria-live': 'polite' });
  const panel = h('div', {});
  const show = (error: unknown) => status.replaceChildren(errorBox(errorMessage(error)));

  const name = h('input', { type: 'text', required: true });
  const credits = h('input', { type: 'number', min: 0, value: 0 });
  const create = h(
    'form',
    { class: 'card' },
    h('h2', {}, 'Create an account'),
    field('Name', name),
    field('Opening credits', credits),
    h('button', { type: 'submit', class: 'primary' }, 'Create account'),
  );
  create.addEventListener('submit', (event) => {
    event.preventDefault();
    admin<AccountResponse>('/accounts', 'POST', {
      name: name.value,
      credits: Number(credits.value),
    } satisfies CreateAccountRequest)
      .then(({ account }) => openAccount(account))
      .catch(show);
  });

  const search = h('input', { type: 'search', spellcheck: 'false', 'aria-describedby': 'account-search-hint' });
  const found = h('div', { 'aria-live': 'polite' });
  const find = h(
    'form',
    { class: 'card', role: 'search' },
    h('h2', {}, 'Accounts'),
    field('Find an account', search),
    h(
      'p',
      { id: 'account-search-hint', class: 'muted' },
      'A part of its name, its id, or the start of a key (sk_live_…).',
    ),
    h('button', { type: 'submit' }, 'Search'),
    found,
  );
  /** The accounts of a search, newest first, a page at a time; each opens as the account page below. */
  const listAccounts = (text: string) => {
    const listed: AccountListItem[] = [];
    const more = (cursor: string | null) =>
      admin<AccountList>(`/accounts${query({ query: text, limit: ACCOUNT_PAGE, cursor })}`)
        .then((page) => {
          listed.push(...page.accounts);
          found.replaceChildren(
            listed.length
              ? table(
                  ['Account', 'Credits', 'Active keys', 'Created'],
                  listed.map((account) => [
                    button(account.name, () => openAccount(account), { class: 'link', 'data-account': account.id }),
                    String(account.paid_credits),
                    String(account.active_keys),
                    formatDate(account.created_at),
                  ]),
                  text ? `Accounts matching “${text}”` : 'Accounts, newest first',
                )
              : h('p', {}, text ? `No account matches “${text}”.` : 'No accounts yet.'),
            page.next_cursor ? button('More accounts', () => void more(page.next_cursor)) : '',
          );
        })
        .catch(show);
    void more(null);
  };
  find.addEventListener('submit', (event) => {
    event.preventDefault();
    listAccounts(search.value.trim());
  });

  const openAccount = (account: Account) => {
    status.replaceChildren();
    const keys = h('ul', { class: 'keys' });
    const ledger = h('div', {});
    const refresh = (path = `/accounts/${account.id}`, method = 'GET', body?: unknown) =>
      admin<AccountResponse>(path, method, body)
        .then(({ account: read }) => openAccount(read))
        .catch(show);

    const restrictUntil = h('input', { type: 'datetime-local' });
    const environment = select([
      ['sandbox', 'sandbox'],
      ['live', 'live'],
    ]);
    const keyName = h('input', { type: 'text' });
    const amount = h('input', { type: 'number', step: 1 });
    const reason = h('input', { type: 'text' });
    const revokeId = h('input', { type: 'text', spellcheck: 'false' });

    const revoke = (keyId: string, row?: HTMLElement) =>
      admin<void>(`/api-keys/${encodeURIComponent(keyId)}`, 'DELETE')
        .then(() => {
          status.replaceChildren(h('p', { class: 'ok' }, `Key ${keyId} revoked: the API refuses it from now on.`));
          row?.querySelector('button')?.remove();
          row?.append(h('span', { class: 'status status-failed' }, 'revoked'));
        })
        .catch(show);

    const issue = h(
      'form',
      { class: 'inline' },
      field('Environment', environment),
      field('Key name', keyName),
      h('button', { type: 'submit' }, 'Issue a key'),
    );
    issue.addEventListener('submit', (event) => {
      event.preventDefault();
      admin<CreatedApiKey>(`/accounts/${account.id}/api-keys`, 'POST', {
        environment: environment.value,
        ...(keyName.value ? { name: keyName.value } : {}),
      })
        .then(({ api_key, secret }) => {
          const row = h(
            'li',
            { 'data-key': api_key.id },
            h('span', { class: 'mono' }, `${api_key.id} (${api_key.environment}, ${api_key.prefix}…) `),
            h(
              'div',
              { class: 'secret', role: 'alert' },
              'Secret, shown once: copy it now. ',
              h('code', { 'data-role': 'secret' }, secret),
            ),
          );
          row.append(
            button('Revoke', () => void revoke(api_key.id, row), { 'aria-label': `Revoke key ${api_key.id}` }),
          );
          keys.append(row);
        })
        .catch(show);
    });

    const revokeForm = h(
      'form',
      { class: 'inline' },
      field('Key id', revokeId),
      h('button', { type: 'submit' }, 'Revoke key'),
    );
    revokeForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void revoke(revokeId.value.trim());
    });

    const creditForm = h(
      'form',
      { class: 'inline' },
      field('Amount (negative corrects)', amount),
      field('Reason', reason),
      h('button', { type: 'submit' }, 'Grant or correct'),
    );
    creditForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void refresh(`/accounts/${account.id}/credits`, 'POST', {
        amount: Number(amount.value),
        reason: reason.value,
      } satisfies CreditChangeRequest);
    });

    const restrictForm = h(
      'form',
      { class: 'inline' },
      field('Restricted until', restrictUntil),
      h('button', { type: 'submit' }, 'Restrict'),
    );
    restrictForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const until = restrictUntil.value ? new Date(restrictUntil.value).toISOString() : null;
      void refresh(`/accounts/${account.id}`, 'PATCH', { restricted_until: until } satisfies UpdateAccountRequest);
    });

    admin<OperatorLedger>(`/accounts/${account.id}/ledger`)
      .then(({ entries }) =>
        ledger.replaceChildren(
          table(
            ['When', 'Kind', 'Amount', 'Job'],
            entries.map((entry) => [
              formatDate(entry.created_at),
              entry.kind,
              String(entry.amount),
              entry.job_id ?? '',
            ]),
            'Ledger',
          ),
        ),
      )
      .catch(show);

    panel.replaceChildren(
      h(
        'section',
        { class: 'card', 'data-account': account.id },
        h('h2', {}, account.name),
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Id'),
          h('dd', { class: 'mono', 'data-role': 'account-id' }, account.id),
          h('dt', {}, 'API access'),
          h('dd', {}, account.api_access ? 'on' : 'off'),
          h('dt', {}, 'Restricted until'),
          h('dd', {}, formatDate(account.restricted_until)),
          h('dt', {}, 'Paid credits'),
          h('dd', {}, String(account.paid_credits)),
        ),
        h(
          'div',
          { class: 'actions' },
          button(
            account.api_access ? 'Switch API access off' : 'Switch API access on',
            () =>
              void refresh(`/accounts/${account.id}`, 'PATCH', {
                api_access: !account.api_access,
              } satisfies UpdateAccountRequest),
          ),
          account.restricted_until
            ? button(
                'Lift the restriction',
                () =>
                  void refresh(`/accounts/${account.id}`, 'PATCH', {
                    restricted_until: null,
                  } satisfies UpdateAccountRequest),
              )
            : null,
        ),
        restrictForm,
        h('h3', {}, 'Keys'),
        issue,
        keys,
        revokeForm,
        h('h3', {}, 'Credits'),
        creditForm,
        button('Download the ledger (CSV)', () => {
          download(`/admin/v1/accounts/${account.id}/ledger.csv`, 'admin')
            .then((filename) => status.replaceChildren(h('p', { class: 'ok' }, `Downloaded ${filename}.`)))
            .catch(show);
        }),
        ledger,
      ),
    );
  };

  main.append(
    h('h1', {}, 'Operators'),
    h(
      'p',
      {},
      h('a', { href: '#/operators/overview' }, 'Overview: queues, workers, results'),
      ' · ',
      h('a', { href: '/admin/queues', target: '_blank', rel: 'noopener' }, 'Bull Board (queues)'),
      ' asks for the admin token as its password. ',
      signOutButton(main),
    ),
    status,
    h('div', { class: 'columns' }, find, create),
    panel,
  );
  listAccounts('');
}

function signOutButton(main: HTMLElement): HTMLButtonElement {
  return button('Sign out (operator)', () => {
    session.endAdmin('You signed out as an operator.');
    main.replaceChildren();
    renderOperators(main);
  });
}

function signIn(main: HTMLElement): void {
  const notice = session.takeNotice();
  const token = h('input', { type: 'password', autocomplete: 'off', required: true });
  const status = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card narrow' },
    h('h1', {}, 'Operator sign-in'),
    h('p', {}, 'Sign in with the admin token (ADMIN_TOKEN). It stays in this tab only.'),
    notice ? h('p', { class: 'notice', role: 'alert' }, notice) : null,
    field('Admin token', token),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const candidate = token.value.trim();
    if (!candidate) {
      status.replaceChildren(errorBox('Enter the admin token.'));
      return;
    }
    // The token is checked by the first admin request: one refused returns here with the API's words.
    session.setAdminToken(candidate);
    main.replaceChildren();
    renderOperators(main);
  });
  main.append(form);
  token.focus();
}
