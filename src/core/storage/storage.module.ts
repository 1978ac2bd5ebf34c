import { Module } from '@nestjs/common';
import { FilesController } from './files.controller';
import { LocalDiskStorage } from './local-disk.storage';
import { ResultFilesService } from './result-files.service';
import { ResultStorage } from './result-storage';
import { ResultUrlSigner } from './result-url.signer';

/**
 * Result files: the storage driver, URL signing, and the public route that serves signed URLs.
 * Swap `useClass` for another driver (S3-compatible) without touching a caller.
 */
@Module({
  controllers: [FilesController],
  providers: [{ provide: ResultStorage, useClass: LocalDiskStorage }, ResultUrlSigner, ResultFilesService],
  exports: [ResultStorage, ResultUrlSigner],
})
export class StorageModule {}
