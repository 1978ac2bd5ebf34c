import { ApiProperty } from '@nestjs/swagger';
import { DeliveryStatus } from './webhook.entities';
import { PageLimit } from '../../core/http/paging';

export class WebhookSecretResponseDto {
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'Standard Webhooks secret.' })
  secret!: string;
}

export class DeliveriesQueryDto {
  @PageLimit({ maximum: 200, fallback: 50 })
  limit?: number;
}

export class DeliveryAttemptDto {
  @ApiProperty({ type: 'integer' }) number!: number;
  @ApiProperty({ enum: [DeliveryStatus.Delivered, DeliveryStatus.Failed, DeliveryStatus.Gone, DeliveryStatus.Blocked] })
  outcome!: string;
  @ApiProperty({ type: 'integer', nullable: true }) status_code!: number | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ format: 'date-time' }) started_at!: string;
  @ApiProperty({ type: 'integer' }) duration_ms!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_attempt_at!: string | null;
}

export class DeliveryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) event_id!: string;
  @ApiProperty({ example: 'image_api.result.completed' }) event_type!: string;
  @ApiProperty({ format: 'uuid' }) job_id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: DeliveryStatus, enumName: 'DeliveryStatus' }) status!: DeliveryStatus;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_attempt_at!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) last_status_code!: number | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at!: string | null;
  @ApiProperty({ type: [DeliveryAttemptDto] }) attempt_log!: DeliveryAttemptDto[];
}

export class DeliveriesResponseDto {
  @ApiProperty({ type: [DeliveryDto] }) deliveries!: DeliveryDto[];
}

export class RedeliveryResponseDto {
  @ApiProperty({ type: DeliveryDto }) delivery!: DeliveryDto;
}
