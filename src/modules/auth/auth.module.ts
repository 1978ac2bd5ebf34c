import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { AccountController } from './account.controller';
import { ApiKey } from './api-key.entity';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { OperatorTokensService } from './operator-tokens.service';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKey]), AccountsModule, RateLimitModule],
  controllers: [AccountController],
  providers: [ApiKeysRepository, ApiKeysService, OperatorTokensService],
  exports: [ApiKeysService, OperatorTokensService],
})
export class AuthModule {}
