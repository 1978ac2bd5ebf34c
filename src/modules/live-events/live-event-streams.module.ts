import { Module } from '@nestjs/common';
import { HealthModule } from '../../core/health/health.module';
import { AuthModule } from '../auth/auth.module';
import { LiveEventStreams } from './live-event-streams.service';
import { LiveEventsController } from './live-events.controller';

/** The event streams of the API role: `GET /api/v1/events` and the subscription that feeds it. */
@Module({
  imports: [HealthModule, AuthModule],
  controllers: [LiveEventsController],
  providers: [LiveEventStreams],
})
export class LiveEventStreamsModule {}
