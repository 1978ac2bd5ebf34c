import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Account } from './account.entity';
import { AccountsRepository } from './accounts.repository';

/**
 * The accounts table alone, without the accounts API: the credits, jobs, auth and webhook
 * modules use it, and the accounts module itself uses the credits module.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Account])],
  providers: [AccountsRepository],
  exports: [AccountsRepository],
})
export class AccountsRepositoryModule {}
