import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CapacityGroupCounter } from './capacity-group.entity';
import { CapacityService } from './capacity.service';

@Module({ imports: [TypeOrmModule.forFeature([CapacityGroupCounter])], providers: [CapacityService], exports: [CapacityService] })
export class CapacityModule {}
