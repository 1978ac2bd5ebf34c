import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKey } from './idempotency-key.entity';
import { IdempotencyService } from './idempotency.service';
import { OperatorIdempotencyKey } from './operator-idempotency-key.entity';

@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey, OperatorIdempotencyKey])],
  providers: [IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
