import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { FilesController } from './files.controller';
import { LocalDiskStorage } from './local-disk.storage';
import { PresignedResultUrls } from './presigned-result-urls';
import { ResultFilesService } from './result-files.service';
import { ResultStorage } from './result-storage';
import { ResultUrlSigner } from './result-url.signer';
import { ApiResultUrls, ResultUrls } from './result-urls';
import { S3Storage } from './s3.storage';
import { ServiceSecretsRepository } from './service-secrets.repository';

/**
 * Result files: the storage driver (STORAGE_DIR on local disk, or an S3-compatible bucket,
 * by STORAGE_DRIVER), the URLs handed out for them (RESULT_URLS), and the public route that
 * serves the API's signed URLs, which works with either driver.
 */
@Module({
  controllers: [FilesController],
  providers: [
    {
      provide: ResultStorage,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): ResultStorage =>
        config.STORAGE_DRIVER === 's3' ? new S3Storage(config) : new LocalDiskStorage(config),
    },
    {
      provide: ResultUrls,
      inject: [APP_CONFIG, ResultStorage, ResultUrlSigner],
      useFactory: (config: AppConfig, storage: ResultStorage, signer: ResultUrlSigner): ResultUrls => {
        if (config.RESULT_URLS === 'api') return new ApiResultUrls(signer);
        // Configuration refuses presigned URLs without STORAGE_DRIVER=s3; this guards the wiring.
        if (!(storage instanceof S3Storage)) throw new Error('RESULT_URLS=presigned needs STORAGE_DRIVER=s3');
        return new PresignedResultUrls(storage, config);
      },
    },
    ResultUrlSigner,
    ServiceSecretsRepository,
    ResultFilesService,
  ],
  exports: [ResultStorage, ResultUrlSigner, ResultUrls],
})
export class StorageModule {}
