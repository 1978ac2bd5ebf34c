import type { JobStatus, ResultStatus } from './types';

/**
 * An event of `GET /api/v1/events`. `job` and `result` say what changed status (re-read it: the event is a hint,
 * and a status may repeat); `ready` opens the stream; `resync` means changes may have been missed (re-read what you
 * show); `closing` comes before the server ends the stream (reconnect).
 */
export type LiveEvent =
  | { event: 'ready'; data: { request_id: string } }
  | { event: 'job'; data: { job_id: string; status: JobStatus } }
  | { event: 'result'; data: { job_id: string; result_id: string; status: ResultStatus } }
  | { event: 'resync'; data: Record<string, never> }
  | { event: 'closing'; data: { reason: string } };

/**
 * The events of a server-sent event stream as they arrive: comments (the heartbeat) and fields other than `event`
 * and `data` are skipped, and an event without data is none.
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<LiveEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): LiveEvent | undefined {
  let name = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { event: name, data: JSON.parse(data.join('\n')) as unknown } as LiveEvent;
}
