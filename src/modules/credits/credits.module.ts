import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { CreditLedgerEntry } from './credit-ledger-entry.entity';
import { CreditLedgerRepository } from './credit-ledger.repository';
import { CreditsService } from './credits.service';

@Module({
  imports: [TypeOrmModule.forFeature([CreditLedgerEntry]), AccountsModule, IdempotencyModule],
  providers: [CreditLedgerRepository, CreditsService],
  exports: [CreditsService],
})
export class CreditsModule {}
