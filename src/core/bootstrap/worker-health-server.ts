import { createServer, type Server } from 'node:http';
import type { HealthService } from '../health/health.service';
import type { MetricsScraper } from '../metrics/metrics-scraper';

/**
 * A worker answers no public HTTP; this port only serves `/health/live` and `/health/ready`
 * for an orchestrator's probes, and `/metrics` for Prometheus. It is an internal port, so
 * `/metrics` needs no token here. Node's bare server is enough for three fixed routes.
 */
export function startWorkerHealthServer(port: number, health: HealthService, metrics: MetricsScraper): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return reply(405, { status: 'method_not_allowed' });
    if (req.url === '/health/live') return reply(200, { status: 'ok' });
    if (req.url === '/health/ready') {
      health
        .readinessReply()
        .then(({ httpStatus, body }) => reply(httpStatus, body))
        .catch(() => reply(503, { status: 'unavailable' }));
      return;
    }
    if (req.url === '/metrics') {
      metrics
        .scrape()
        .then((body) => res.writeHead(200, { 'content-type': metrics.contentType }).end(body))
        .catch(() => reply(500, { status: 'metrics_unavailable' }));
      return;
    }
    reply(404, { status: 'not_found' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve(server));
  });
}
