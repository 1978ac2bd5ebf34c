import { Module } from '@nestjs/common';
import { CancelRateLimitInterceptor } from './cancel-rate-limit.interceptor';
import { FailedAuthLimitService } from './failed-auth-limit.service';
import { PollRateLimitInterceptor } from './poll-rate-limit.interceptor';
import { RateLimitService } from './rate-limit.service';

@Module({
  providers: [RateLimitService, PollRateLimitInterceptor, CancelRateLimitInterceptor, FailedAuthLimitService],
  exports: [RateLimitService, PollRateLimitInterceptor, CancelRateLimitInterceptor, FailedAuthLimitService],
})
export class RateLimitModule {}
