import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { CreditsService } from './credits.service';

@Module({ imports: [IdempotencyModule], providers: [CreditsService], exports: [CreditsService] })
export class CreditsModule {}
