import { session } from './session.js';

/** A status change of one of the key's jobs or results, as `GET /api/v1/events` announces it. */
export interface LiveChange {
  type: 'job' | 'result';
  job_id: string;
  result_id?: string;
  status: string;
}

type Listener = (change: LiveChange | 'resync') => void;

const RECONNECT_MS = 2000;

/**
 * One event stream per signed-in tab, read with fetch (EventSource cannot send the key in a
 * header). Changes are hints: pages re-read what they show. After a lost connection or a
 * `resync`, listeners hear 'resync' and re-read everything they show.
 */
class LiveEvents {
  private readonly listeners = new Set<Listener>();
  private controller: AbortController | null = null;
  private onRefused: (message: string) => void = () => undefined;

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  whenRefused(handler: (message: string) => void): void {
    this.onRefused = handler;
  }

  start(): void {
    if (this.controller) return;
    this.controller = new AbortController();
    void this.run(this.controller.signal);
  }

  stop(): void {
    this.controller?.abort();
    this.controller = null;
  }

  private emit(change: LiveChange | 'resync'): void {
    for (const listener of this.listeners) listener(change);
  }

  private async run(signal: AbortSignal): Promise<void> {
    let connectedBefore = false;
    while (!signal.aborted) {
      const key = session.apiKey();
      if (!key) return;
      try {
        const response = await fetch('/api/v1/events', {
          headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' },
          signal,
          cache: 'no-store',
        });
        if (response.status === 401 || response.status === 403) {
          const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
          this.onRefused(body?.error?.message ?? 'The API refused the key.');
          return;
        }
        if (response.ok && response.body) {
          if (connectedBefore) this.emit('resync');
          connectedBefore = true;
          await this.read(response.body, signal);
        }
      } catch {
        // A dropped connection: reconnect below, then re-read.
      }
      if (signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  }

  private async read(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    while (!signal.aborted) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        this.dispatch(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
      }
    }
  }

  private dispatch(block: string): void {
    let event = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data += line.slice(5).trim();
    }
    if (event === 'resync') this.emit('resync');
    if (event !== 'job' && event !== 'result') return;
    try {
      const payload = JSON.parse(data) as Omit<LiveChange, 'type'>;
      this.emit({ type: event, ...payload });
    } catch {
      // A malformed event is only a lost hint; the next one or a resync brings the page up to date.
    }
  }
}

export const liveEvents = new LiveEvents();
