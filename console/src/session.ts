/**
 * What the console remembers lives in this tab's session storage only: it ends with the tab and
 * never reaches a URL, a cookie or a log.
 */
const API_KEY = 'console.apiKey';
const ADMIN_TOKEN = 'console.adminToken';
const NOTICE = 'console.signInNotice';

export const session = {
  apiKey: (): string | null => sessionStorage.getItem(API_KEY),
  setApiKey: (key: string): void => sessionStorage.setItem(API_KEY, key),
  adminToken: (): string | null => sessionStorage.getItem(ADMIN_TOKEN),
  setAdminToken: (token: string): void => sessionStorage.setItem(ADMIN_TOKEN, token),
  /** Whether the key is a sandbox one: its prefix says so. */
  sandbox: (): boolean => sessionStorage.getItem(API_KEY)?.startsWith('sk_sandbox_') ?? false,
  endApiKey(notice?: string): void {
    sessionStorage.removeItem(API_KEY);
    if (notice) sessionStorage.setItem(NOTICE, notice);
  },
  endAdmin(notice?: string): void {
    sessionStorage.removeItem(ADMIN_TOKEN);
    if (notice) sessionStorage.setItem(NOTICE, notice);
  },
  /** The message to show on the next sign-in form, once. */
  takeNotice(): string | null {
    const notice = sessionStorage.getItem(NOTICE);
    sessionStorage.removeItem(NOTICE);
    return notice;
  },
};
