import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsRepositoryModule } from '../accounts/accounts-repository.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ApiKey } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKey]), AccountsRepositoryModule, RateLimitModule],
  providers: [ApiKeysService],
  exports: [ApiKeysService],
})
export class AuthModule {}
