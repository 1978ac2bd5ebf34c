import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { CreditsModule } from '../credits/credits.module';
import { AccountController } from './account.controller';
import { AccountsRepositoryModule } from './accounts-repository.module';
import { AccountsService } from './accounts.service';

@Module({
  imports: [AccountsRepositoryModule, AuthModule, CreditsModule],
  controllers: [AccountController],
  providers: [AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
