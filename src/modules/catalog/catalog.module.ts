import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolAvailabilityModule } from './tool-availability';
import { CatalogController } from './catalog.controller';
import { CatalogService } from './catalog.service';
import { Price } from './price.entity';
import { PricesRepository } from './prices.repository';

@Module({
  imports: [TypeOrmModule.forFeature([Price]), ToolAvailabilityModule],
  controllers: [CatalogController],
  providers: [CatalogService, PricesRepository],
  exports: [CatalogService],
})
export class CatalogModule {}
