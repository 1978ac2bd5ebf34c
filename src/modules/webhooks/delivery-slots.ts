import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';

/**
 * Per-account cap on the deliveries this worker has in flight: a slow or dead receiver holds at
 * most WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT of the worker's slots, and other accounts' deliveries
 * keep flowing through the rest. The cap is per worker on purpose: it protects each worker's
 * own slots, needs no shared state (a dead worker holds nothing), and costs no round trip.
 */
@Injectable()
export class DeliverySlots {
  private readonly inFlight = new Map<string, number>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  take(accountId: string): boolean {
    const taken = this.inFlight.get(accountId) ?? 0;
    if (taken >= this.config.WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT) return false;
    this.inFlight.set(accountId, taken + 1);
    return true;
  }

  release(accountId: string): void {
    const taken = (this.inFlight.get(accountId) ?? 1) - 1;
    if (taken > 0) this.inFlight.set(accountId, taken);
    else this.inFlight.delete(accountId);
  }
}
