import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OutputFormat } from '../../core/image/output-format';
import type { CapacityGroup, ToolId } from '../catalog/tools';
import type { JobKind, JobStatus } from './job-status';

@Entity({ name: 'jobs' })
export class Job {
  @PrimaryColumn('uuid') id!: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId!: string;
  @Column({ name: 'api_key_id', type: 'uuid' }) apiKeyId!: string;
  @Column({ type: 'boolean' }) sandbox!: boolean;
  @Column({ type: 'text' }) api!: ToolId;
  @Column({ type: 'text' }) kind!: JobKind;
  @Column({ name: 'capacity_group', type: 'text' }) capacityGroup!: CapacityGroup;
  @Column({ type: 'text' }) status!: JobStatus;
  @Column({ name: 'total_results', type: 'integer' }) totalResults!: number;
  @Column({ name: 'completed_results', type: 'integer', default: 0 }) completedResults!: number;
  @Column({ name: 'failed_results', type: 'integer', default: 0 }) failedResults!: number;
  @Column({ name: 'cancelled_results', type: 'integer', default: 0 }) cancelledResults!: number;
  @Column({ name: 'credits_reserved', type: 'integer' }) creditsReserved!: number;
  @Column({ name: 'credits_used', type: 'integer', default: 0 }) creditsUsed!: number;
  @Column({ name: 'cost_key', type: 'text' }) costKey!: string;
  @Column({ name: 'pricing_version', type: 'integer' }) pricingVersion!: number;
  @Column({ name: 'credits_per_result', type: 'integer' }) creditsPerResult!: number;
  @Column({ name: 'output_format', type: 'text' }) outputFormat!: OutputFormat;
  @Column({ type: 'jsonb' }) options!: Record<string, unknown>;
  @Column({ name: 'webhook_url', type: 'text', nullable: true }) webhookUrl!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
}
