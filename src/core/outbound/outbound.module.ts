import { Global, Module } from '@nestjs/common';
import { OUTBOUND_TLS, OutboundHttps } from './outbound-https';
import { SourceFetcher } from './source-fetcher';

/** Re-exported so code that imports the outbound client and its TLS token from here keeps working. */
export { OUTBOUND_TLS, OutboundHttps, type GuardedAgent } from './outbound-https';

/**
 * Outbound HTTP for every module: the guarded agents and the source-image fetcher. The
 * classes live in their own files so the fetcher can depend on OutboundHttps without an
 * import cycle through this module.
 */
@Global()
@Module({
  providers: [{ provide: OUTBOUND_TLS, useValue: {} }, OutboundHttps, SourceFetcher],
  exports: [OutboundHttps, SourceFetcher],
})
export class OutboundModule {}
