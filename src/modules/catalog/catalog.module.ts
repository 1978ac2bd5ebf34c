import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolAvailabilityModule } from '../tools/tool-availability';
import { CatalogController } from './catalog.controller';
import { CatalogService } from './catalog.service';
import { Price } from './price.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Price]), ToolAvailabilityModule],
  controllers: [CatalogController],
  providers: [CatalogService],
  exports: [CatalogService],
})
export class CatalogModule {}
