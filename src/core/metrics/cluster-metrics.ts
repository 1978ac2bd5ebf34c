import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from 'pino';

const REQUEST = 'imgjobs:cluster-metrics-request';
const RESPONSE = 'imgjobs:cluster-metrics-response';
/** prom-client gives up on a silent process after 5 s; this bounds the wait for the primary itself. */
const CLUSTER_SCRAPE_TIMEOUT_MS = 10_000;

interface ClusterMetricsRequest {
  type: typeof REQUEST;
  id: number;
}

interface ClusterMetricsResponse {
  type: typeof RESPONSE;
  id: number;
  metrics?: string;
  error?: string;
}

const isRequest = (message: unknown): message is ClusterMetricsRequest =>
  (message as Partial<ClusterMetricsRequest> | null)?.type === REQUEST;
const isResponse = (message: unknown): message is ClusterMetricsResponse =>
  (message as Partial<ClusterMetricsResponse> | null)?.type === RESPONSE;

/**
 * In the primary of an API cluster (API_PROCESSES > 1): a scrape reaches one API process, which
 * asks the primary here; the primary collects every process's registry through prom-client's
 * AggregatorRegistry and answers with the sum (or the max, average... each metric says which).
 */
export function serveClusterMetrics(logger: Logger): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isRequest(message)) return;
    const reply = (response: ClusterMetricsResponse) => {
      if (worker.isConnected()) worker.send(response);
    };
    aggregator.clusterMetrics().then(
      (metrics) => reply({ type: RESPONSE, id: message.id, metrics }),
      (error: unknown) => {
        logger.warn({ err: error }, 'could not aggregate the metrics of the API processes');
        reply({ type: RESPONSE, id: message.id, error: String(error) });
      },
    );
  });
}

interface WaitingScrape {
  resolve(metrics: string): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * In one process of an API cluster: reports this process's registry to the primary's
 * aggregation, and asks the primary for the whole cluster's metrics when scraped.
 */
export class ClusterMetricsClient {
  private nextId = 0;
  private readonly waiting = new Map<number, WaitingScrape>();

  constructor(registry: Registry) {
    AggregatorRegistry.setRegistries(registry);
    // Constructing one is how prom-client starts answering the primary's collection requests in this process.
    new AggregatorRegistry();
    process.on('message', (message: unknown) => {
      if (isResponse(message)) this.settle(message);
    });
  }

  scrape(): Promise<string> {
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error('the API cluster did not answer with its metrics in time'));
      }, CLUSTER_SCRAPE_TIMEOUT_MS);
      this.waiting.set(id, { resolve, reject, timer });
      const request: ClusterMetricsRequest = { type: REQUEST, id };
      process.send?.(request);
    });
  }

  private settle(response: ClusterMetricsResponse): void {
    const scrape = this.waiting.get(response.id);
    if (!scrape) return;
    this.waiting.delete(response.id);
    clearTimeout(scrape.timer);
    if (response.metrics !== undefined) scrape.resolve(response.metrics);
    else
      scrape.reject(new Error(`the API cluster could not aggregate its metrics: ${response.error ?? 'unknown error'}`));
  }
}
