/**
 * The HTTPS receiver of `bench:webhooks`, in its own process so that recording events does not
 * delay receipts. Answers 200 at once; reports to its parent over IPC.
 */
import { createServer } from 'node:https';

const [cert, key] = [process.env.BENCH_TLS_CERT ?? '', process.env.BENCH_TLS_KEY ?? ''];
const expected = Number(process.env.BENCH_EVENTS ?? 0);
/** [created_at in ms, latency in ms] per event. */
const latencies: Array<[number, number]> = [];
const seen = new Set<string>();
let duplicates = 0;
let lastReceipt = 0;

const server = createServer({ cert, key }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const now = Date.now();
    res.writeHead(200).end();
    const id = String(req.headers['x-service-event-id']);
    if (seen.has(id)) {
      duplicates++;
      return;
    }
    seen.add(id);
    lastReceipt = now;
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { created_at: string };
    const createdAt = Date.parse(event.created_at);
    latencies.push([createdAt, now - createdAt]);
    if (seen.size === expected) process.send?.({ type: 'done', latencies, duplicates, lastReceipt });
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', (message: { type: string }) => {
  if (message.type === 'status') process.send?.({ type: 'status', received: seen.size, duplicates });
});
process.on('disconnect', () => process.exit(0));
