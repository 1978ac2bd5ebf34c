import { Module } from '@nestjs/common';
import { CancelRateLimitInterceptor } from './cancel-rate-limit.interceptor';
import { FailedAuthLimitService } from './failed-auth-limit.service';
import { PollRateLimitGuard } from './poll-rate-limit.guard';
import { RateLimitService } from './rate-limit.service';

@Module({
  providers: [RateLimitService, PollRateLimitGuard, CancelRateLimitInterceptor, FailedAuthLimitService],
  exports: [RateLimitService, PollRateLimitGuard, CancelRateLimitInterceptor, FailedAuthLimitService],
})
export class RateLimitModule {}
