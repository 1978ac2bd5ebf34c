import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Account } from './account.entity';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';

/**
 * The accounts table, at the bottom of the modules: auth, credits, jobs, webhooks and admin
 * build on it, and it uses none of them. Opening an account with its grant is the credits
 * module's, and what follows a change of an account's flags is the admin's.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Account])],
  providers: [AccountsRepository, AccountsService],
  exports: [AccountsRepository, AccountsService],
})
export class AccountsModule {}
