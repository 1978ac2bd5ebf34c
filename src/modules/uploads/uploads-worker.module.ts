import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../core/storage/storage.module';
import { UploadedSources } from '../../core/uploads/uploaded-sources';
import { StoredUploadSources } from './stored-upload-sources';
import { UploadRetentionSweeperService } from './upload-retention-sweeper.service';
import { Upload } from './upload.entity';
import { UploadsRepository } from './uploads.repository';

/**
 * The worker's half: reading uploaded sources and deleting expired ones. Global, because the
 * tools' source loading needs UploadedSources and the tools may import no module (they sit
 * below every module); the worker module imports this once.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Upload]), StorageModule],
  providers: [
    UploadsRepository,
    { provide: UploadedSources, useClass: StoredUploadSources },
    UploadRetentionSweeperService,
  ],
  exports: [UploadedSources, UploadRetentionSweeperService],
})
export class UploadsWorkerModule {}
