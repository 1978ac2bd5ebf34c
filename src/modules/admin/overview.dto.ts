import { ApiProperty } from '@nestjs/swagger';

export class QueueOverviewDto {
  @ApiProperty({ example: 'background-removal' }) name!: string;
  @ApiProperty({ type: 'integer', description: 'Entries waiting for a worker.' }) waiting!: number;
  @ApiProperty({ type: 'integer', description: 'Entries a worker is running.' }) active!: number;
  @ApiProperty({ type: 'integer', description: 'Entries waiting for their time (a retry’s backoff).' })
  delayed!: number;
  @ApiProperty({ type: 'integer', description: 'Failed entries the queue still keeps.' }) failed!: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Seconds the entry that has waited longest has waited; null when none waits.',
  })
  oldest_waiting_seconds!: number | null;
}

export class MinuteOfResultsDto {
  @ApiProperty({ format: 'date-time', description: 'The minute’s start (UTC).' }) minute!: string;
  @ApiProperty({ type: 'integer' }) completed!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
}

export class FailuresOfCodeDto {
  @ApiProperty({ example: 'source_unreachable', description: 'The result’s `error.code`.' }) code!: string;
  @ApiProperty({ type: 'integer' }) count!: number;
}

export class WorkerOverviewDto {
  @ApiProperty({ example: 'worker-1:4211', description: 'The worker process’s name: its host and process id.' })
  name!: string;
  @ApiProperty({ type: [String], example: ['10.0.0.7:53122'], description: 'Its connections’ addresses.' })
  addresses!: string[];
  @ApiProperty({ type: [String], example: ['background-removal', 'sandbox'], description: 'The queues it consumes.' })
  queues!: string[];
}

export class OverviewDto {
  @ApiProperty({ format: 'date-time' }) generated_at!: string;
  @ApiProperty({ type: [QueueOverviewDto], description: 'Every queue, the models’ included.' })
  queues!: QueueOverviewDto[];
  @ApiProperty({
    type: [MinuteOfResultsDto],
    description:
      'The last 60 minutes, oldest first, the current one last: results settled, every account and environment.',
  })
  results_per_minute!: MinuteOfResultsDto[];
  @ApiProperty({ type: [FailuresOfCodeDto], description: 'Results failed in the same 60 minutes by code, most first.' })
  failures_by_code!: FailuresOfCodeDto[];
  @ApiProperty({ type: [WorkerOverviewDto], description: 'The workers connected to Redis now, by name.' })
  workers!: WorkerOverviewDto[];
}

export class OverviewResponseDto {
  @ApiProperty({ type: OverviewDto }) overview!: OverviewDto;
  @ApiProperty() request_id!: string;
}
