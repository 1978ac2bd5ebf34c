import { Module } from '@nestjs/common';
import { PollRateLimitInterceptor } from './poll-rate-limit.interceptor';
import { RateLimitService } from './rate-limit.service';

@Module({ providers: [RateLimitService, PollRateLimitInterceptor], exports: [RateLimitService, PollRateLimitInterceptor] })
export class RateLimitModule {}
