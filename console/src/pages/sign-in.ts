import { errorMessage, request } from '../api.js';
import { errorBox, field, h } from '../dom.js';
import { session } from '../session.js';
import type { AccountInfo } from '../types.js';

/** Sign-in with an API key: the key is checked by reading the account it belongs to. */
export function renderSignIn(main: HTMLElement, signedIn: () => void): void {
  const notice = session.takeNotice();
  const key = h('input', {
    type: 'password',
    name: 'api-key',
    autocomplete: 'off',
    required: true,
    spellcheck: 'false',
  });
  const status = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card narrow', novalidate: true },
    h('h1', {}, 'Sign in'),
    h(
      'p',
      {},
      'Sign in with one of your API keys (sk_live_… or sk_sandbox_…). A sandbox key shows sandbox data. ' +
        'The key stays in this tab only and is forgotten when the tab closes.',
    ),
    notice ? h('p', { class: 'notice', role: 'alert' }, notice) : null,
    field('API key', key),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    status.replaceChildren();
    const candidate = key.value.trim();
    if (!candidate) {
      status.append(errorBox('Enter an API key.'));
      return;
    }
    request<AccountInfo>('/api/v1/account', { token: candidate })
      .then(() => {
        session.setApiKey(candidate);
        signedIn();
      })
      .catch((error: unknown) => status.append(errorBox(errorMessage(error))));
  });
  main.append(form);
  key.focus();
}
