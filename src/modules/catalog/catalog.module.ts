import { Module } from '@nestjs/common';
import { ToolAvailabilityModule } from '../tools/tool-availability';
import { CatalogController } from './catalog.controller';
import { CatalogService } from './catalog.service';

@Module({ imports: [ToolAvailabilityModule], controllers: [CatalogController], providers: [CatalogService], exports: [CatalogService] })
export class CatalogModule {}
