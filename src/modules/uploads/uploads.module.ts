import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../core/storage/storage.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { Upload } from './upload.entity';
import { UploadsController } from './uploads.controller';
import { UploadsRepository } from './uploads.repository';
import { UploadsService } from './uploads.service';

/** `POST /api/v1/uploads`: the API role's half. */
@Module({
  imports: [TypeOrmModule.forFeature([Upload]), StorageModule, RateLimitModule],
  controllers: [UploadsController],
  providers: [UploadsService, UploadsRepository],
})
export class UploadsModule {}
