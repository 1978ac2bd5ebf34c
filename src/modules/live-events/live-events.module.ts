import { Module } from '@nestjs/common';
import { LiveEventsPublisher } from './live-events.publisher';

/** Publishing status changes; both roles make them. */
@Module({
  providers: [LiveEventsPublisher],
  exports: [LiveEventsPublisher],
})
export class LiveEventsModule {}
