import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { CapacityGroup } from '../catalog/tools';

/** How many live results of a capacity group are pending (queued or running): what admission reserves against. */
@Entity({ name: 'capacity_groups' })
export class CapacityGroupCounter {
  @PrimaryColumn({ type: 'text' }) name!: CapacityGroup;
  @Column({ name: 'pending_results', type: 'integer' }) pendingResults!: number;
}
