import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKey } from './idempotency-key.entity';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';
import { OperatorIdempotencyKey } from './operator-idempotency-key.entity';

@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey, OperatorIdempotencyKey])],
  providers: [IdempotencyRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
