import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolsModule } from '../tools/tools.module';
import { CatalogController } from './catalog.controller';
import { CatalogService } from './catalog.service';
import { Price } from './price.entity';

@Module({ imports: [TypeOrmModule.forFeature([Price]), ToolsModule], controllers: [CatalogController], providers: [CatalogService], exports: [CatalogService] })
export class CatalogModule {}
