import cluster from 'node:cluster';
import { Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';
import { ClusterMetricsClient } from './cluster-metrics';

/**
 * What `/metrics` answers, in the Prometheus text format: this process's registry, or, in a
 * process of an API cluster (only the API role is forked, see api-cluster.ts), the whole
 * cluster's, so a scrape of the shared port never sees one process alone.
 */
@Injectable()
export class MetricsScraper {
  private readonly cluster: ClusterMetricsClient | null;

  constructor(private readonly registry: Registry) {
    this.cluster = cluster.isWorker ? new ClusterMetricsClient(registry) : null;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  scrape(): Promise<string> {
    return this.cluster ? this.cluster.scrape() : this.registry.metrics();
  }
}
