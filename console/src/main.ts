import { whenSessionRefused } from './api.js';
import { clear, h, link } from './dom.js';
import { forgetAllJobs } from './jobs-store.js';
import { liveEvents } from './live.js';
import { renderJob } from './pages/job.js';
import { renderJobs } from './pages/jobs.js';
import { renderOperators } from './pages/operators.js';
import { renderResult } from './pages/result.js';
import { renderReview } from './pages/review.js';
import { renderSignIn } from './pages/sign-in.js';
import { renderTryIt } from './pages/try-it.js';
import { renderUsage } from './pages/usage.js';
import { renderWebhooks } from './pages/webhooks.js';
import { refreshReviewCount, withReviewCount } from './review-count.js';
import { session } from './session.js';

/** What a page leaves behind when the console moves on: its live subscription, timers. */
export type Cleanup = () => void;
type Page = (main: HTMLElement, params: string[]) => Cleanup | void;

const ACCOUNT_PAGES: [pattern: RegExp, page: Page][] = [
  [/^\/jobs$/, renderJobs],
  [/^\/jobs\/([^/]+)$/, renderJob],
  [/^\/jobs\/([^/]+)\/results\/([^/]+)$/, renderResult],
  [/^\/review$/, renderReview],
  [/^\/try$/, renderTryIt],
  [/^\/webhooks$/, renderWebhooks],
  [/^\/usage$/, renderUsage],
];

const main = document.getElementById('main') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
let cleanup: Cleanup | void;
/** Whether this tab held a key, so a key gone from storage reads as an ended session. */
let signedIn = session.apiKey() !== null;

function endSession(message: string): void {
  session.endApiKey(message);
  signedIn = false;
  liveEvents.stop();
  forgetAllJobs();
  location.hash = '#/sign-in';
}

whenSessionRefused((credential, message) => {
  if (credential === 'admin') {
    session.endAdmin(`The admin token was refused: ${message}`);
    if (location.hash.startsWith('#/operators')) route();
    return;
  }
  endSession(`Your session has ended: ${message} Sign in again.`);
});
liveEvents.whenRefused((message) => endSession(`Your session has ended: ${message} Sign in again.`));

function renderNav(): void {
  clear(nav);
  const current = location.hash.replace(/^#/, '').split('/')[1] ?? '';
  const item = (label: string, href: string, section: string) =>
    link(label, href, { 'aria-current': current === section ? 'page' : null });
  if (session.apiKey()) {
    nav.append(
      item('Jobs', '#/jobs', 'jobs'),
      withReviewCount(item('Review', '#/review', 'review')),
      item('Try it', '#/try', 'try'),
      item('Webhooks', '#/webhooks', 'webhooks'),
      item('Usage', '#/usage', 'usage'),
      item('Operators', '#/operators', 'operators'),
      h('span', { class: session.sandbox() ? 'badge sandbox' : 'badge live' }, session.sandbox() ? 'sandbox' : 'live'),
    );
    const signOut = h('button', { type: 'button', class: 'link' }, 'Sign out');
    signOut.addEventListener('click', () => {
      session.endApiKey('You signed out.');
      signedIn = false;
      liveEvents.stop();
      forgetAllJobs();
      location.hash = '#/sign-in';
    });
    nav.append(signOut);
  } else {
    nav.append(item('Sign in', '#/sign-in', 'sign-in'), item('Operators', '#/operators', 'operators'));
  }
}

function route(): void {
  if (typeof cleanup === 'function') cleanup();
  cleanup = undefined;
  clear(main);
  const path = location.hash.replace(/^#/, '') || '/';
  renderNav();

  if (path.startsWith('/operators')) {
    cleanup = renderOperators(main);
    return;
  }
  if (path === '/sign-in' || path === '/') {
    if (session.apiKey() && path === '/') {
      location.hash = '#/jobs';
      return;
    }
    renderSignIn(main, () => {
      // Another key may have been signed in: its stream and what was read with it go.
      liveEvents.stop();
      forgetAllJobs();
      signedIn = true;
      liveEvents.start();
      void refreshReviewCount();
      location.hash = '#/jobs';
    });
    return;
  }
  if (!session.apiKey()) {
    if (signedIn) {
      signedIn = false;
      liveEvents.stop();
      forgetAllJobs();
      session.endApiKey('Your session has ended (this tab no longer holds the key). Sign in again.');
    }
    location.hash = '#/sign-in';
    return;
  }
  liveEvents.start();
  for (const [pattern, page] of ACCOUNT_PAGES) {
    const match = pattern.exec(path);
    if (match) {
      cleanup = page(main, match.slice(1).map(decodeURIComponent));
      main.focus({ preventScroll: true });
      return;
    }
  }
  main.append(
    h('h1', {}, 'Not found'),
    h('p', {}, 'This console has no such page. '),
    link('Back to the jobs', '#/jobs'),
  );
}

window.addEventListener('hashchange', route);
route();
