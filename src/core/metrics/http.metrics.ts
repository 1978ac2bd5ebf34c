import { performance } from 'node:perf_hooks';
import { Injectable } from '@nestjs/common';
import type { Request, RequestHandler, Response } from 'express';
import { Registry } from 'prom-client';
import { metricsOf } from './registered-metrics';

/** The route label of a request no route answered (an unknown path, a body refused before routing). */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * The template of the route that answered. Middleware mounted for every path (the request
 * logger's) matches as a wildcard route, `/{*path}`, and stays the request's route when no
 * real one matches after it; no route of the service has a wildcard, so one means unmatched.
 */
function routeTemplate(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && !path.includes('*') ? req.baseUrl + path : UNMATCHED_ROUTE;
}

const STARTED_AT = Symbol('metrics.startedAt');

type TimedResponse = Response & { [STARTED_AT]: number; req: Request };

/**
 * Requests by route template (`/api/v1/jobs/:jobId`, never the path a client sent), method and
 * status, with their latency; the histogram's `_count` is the request count. The route is the
 * one Express matched, read when the response has been sent, so the label set stays as small as
 * the list of routes.
 */
@Injectable()
export class HttpMetrics {
  /** One listener for every response (no closure per request): `this` is the finished response. */
  private readonly observeFinished: (this: TimedResponse) => void;

  constructor(registry: Registry) {
    const duration = metricsOf(registry).histogram({
      name: 'imgjobs_http_request_duration_seconds',
      help: 'HTTP requests by route template, method and status, and their latency.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
    this.observeFinished = function (this: TimedResponse) {
      const seconds = (performance.now() - this[STARTED_AT]) / 1000;
      duration.observe({ route: routeTemplate(this.req), method: this.req.method, status: this.statusCode }, seconds);
    };
  }

  /** Express middleware, first in the chain so the latency covers everything after it. */
  readonly timeRequests: RequestHandler = (_req, res, next) => {
    (res as TimedResponse)[STARTED_AT] = performance.now();
    res.on('finish', this.observeFinished);
    next();
  };
}
