import { session } from './session.js';

/** An answer of the API in its error envelope; `message` is the API's own words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Credential = 'key' | 'admin';

interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Raw bytes (an upload), sent with their own type. */
  blob?: Blob;
  idempotencyKey?: string;
  /** A key being tried at sign-in, instead of the session's. */
  token?: string;
  credential?: Credential;
}

/** Called when the session's key or token is refused: the console returns to sign-in. */
let onSessionRefused: (credential: Credential, message: string) => void = () => undefined;
export function whenSessionRefused(handler: (credential: Credential, message: string) => void): void {
  onSessionRefused = handler;
}

async function envelopeError(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return new ApiError(response.status, body.error.code ?? 'error', body.error.message);
  } catch {
    // Not the envelope (a proxy's page, say): the status says what happened.
  }
  return new ApiError(response.status, 'http_error', `The server answered ${response.status} ${response.statusText}.`);
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const credential = options.credential ?? 'key';
  const token = options.token ?? (credential === 'admin' ? session.adminToken() : session.apiKey());
  const headers = new Headers();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  if (options.idempotencyKey) headers.set('Idempotency-Key', options.idempotencyKey);
  let body: BodyInit | undefined;
  if (options.blob) {
    headers.set('Content-Type', options.blob.type);
    body = options.blob;
  } else if (options.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(options.body);
  }
  const response = await fetch(path, { method: options.method ?? 'GET', headers, body, cache: 'no-store' });
  if (!response.ok) {
    const error = await envelopeError(response);
    if (response.status === 401 && options.token === undefined) onSessionRefused(credential, error.message);
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/**
 * Downloads a file the API sends (a CSV export) with the session's credential, which a plain
 * link could not carry, and hands it to the browser to save under the name the API gave it.
 */
export async function download(path: string, credential: Credential = 'key'): Promise<string> {
  const token = credential === 'admin' ? session.adminToken() : session.apiKey();
  const headers = new Headers();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  const response = await fetch(path, { headers, cache: 'no-store' });
  if (!response.ok) {
    const error = await envelopeError(response);
    if (response.status === 401) onSessionRefused(credential, error.message);
    throw error;
  }
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'download';
  const url = URL.createObjectURL(await response.blob());
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  // The browser has read the blob once the click's download has started.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return filename;
}

export function query(parameters: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters))
    if (value != null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return `The API could not be reached: ${error.message}`;
  return 'Something went wrong.';
}
