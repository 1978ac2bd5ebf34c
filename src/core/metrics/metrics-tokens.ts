import type { AppConfig } from '../config/config.schema';

/**
 * The tokens that read `/metrics`: METRICS_TOKEN, which reads nothing else, and ADMIN_TOKEN, so
 * that scrapers set up before METRICS_TOKEN existed keep working (the admin token may do
 * everything anyway). Empty when neither is set.
 */
export function metricsTokens(config: Pick<AppConfig, 'METRICS_TOKEN' | 'ADMIN_TOKEN'>): string[] {
  return [config.METRICS_TOKEN, config.ADMIN_TOKEN].filter((token): token is string => token !== undefined);
}
