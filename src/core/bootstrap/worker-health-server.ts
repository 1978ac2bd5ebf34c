import { createServer, type Server } from 'node:http';
import type { AppConfig } from '../config/config.schema';
import { bearerToken, matchesAnyToken } from '../http/credentials';
import type { HealthService } from '../health/health.service';
import type { MetricsScraper } from '../metrics/metrics-scraper';
import { metricsTokens } from '../metrics/metrics-tokens';

/**
 * A worker answers no public HTTP; this port only serves `/health/live` and `/health/ready`
 * for an orchestrator's probes, `/health` (which Node.js runs it, as the API's says), and
 * `/metrics` for Prometheus. It is an internal port, so
 * `/metrics` is open unless METRICS_TOKEN is set, for networks that others can reach too; then
 * it takes the tokens the API's `/metrics` takes. The probes never ask for a token: an
 * orchestrator's probes carry none. Node's bare server is enough for four fixed routes.
 */
export function startWorkerHealthServer(
  port: number,
  health: HealthService,
  metrics: MetricsScraper,
  config: Pick<AppConfig, 'METRICS_TOKEN' | 'ADMIN_TOKEN'>,
): Promise<Server> {
  const readers = config.METRICS_TOKEN ? metricsTokens(config) : [];
  const server = createServer((req, res) => {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return reply(405, { status: 'method_not_allowed' });
    if (req.url === '/health') return reply(200, health.about());
    if (req.url === '/health/live') return reply(200, { status: 'ok' });
    if (req.url === '/health/ready') {
      health
        .readinessReply()
        .then(({ httpStatus, body }) => reply(httpStatus, body))
        .catch(() => reply(503, { status: 'unavailable' }));
      return;
    }
    if (req.url === '/metrics') {
      const token = bearerToken(req.headers.authorization);
      if (readers.length > 0 && !(token && matchesAnyToken(token, readers))) {
        return reply(401, { status: 'unauthorized' }, { 'www-authenticate': 'Bearer realm="metrics"' });
      }
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
