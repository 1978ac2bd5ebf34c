import { lookup as dnsLookup } from 'node:dns';
import { Global, Module } from '@nestjs/common';
import { OUTBOUND_LOOKUP, OUTBOUND_TLS, OutboundHttps } from './outbound-https';
import { SourceFetcher } from './source-fetcher';

/** Re-exported so code that imports the outbound client and its tokens from here keeps working. */
export { OUTBOUND_LOOKUP, OUTBOUND_TLS, OutboundHttps } from './outbound-https';

/**
 * Outbound HTTP for every module: customer destinations, operator destinations and the
 * source-image fetcher. The classes live in their own files so the fetcher can depend on
 * OutboundHttps without an import cycle through this module.
 */
@Global()
@Module({
  providers: [
    { provide: OUTBOUND_TLS, useValue: {} },
    { provide: OUTBOUND_LOOKUP, useValue: dnsLookup },
    OutboundHttps,
    SourceFetcher,
  ],
  exports: [OutboundHttps, SourceFetcher],
})
export class OutboundModule {}
