import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CapacityGroupCounter } from './capacity-group.entity';
import { CapacityRepository } from './capacity.repository';
import { CapacityService } from './capacity.service';

@Module({
  imports: [TypeOrmModule.forFeature([CapacityGroupCounter])],
  providers: [CapacityRepository, CapacityService],
  exports: [CapacityService],
})
export class CapacityModule {}
