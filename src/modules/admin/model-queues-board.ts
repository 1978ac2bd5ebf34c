import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { InjectBullBoard, type BullBoardInstance } from '@bull-board/nestjs';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ModelQueues } from '../../core/queue/model-queues';

/**
 * The segmentation models' queues on Bull Board beside the registered ones: their names come from
 * configuration at start, so they are added to the board then instead of listed at import time.
 */
@Injectable()
export class ModelQueuesBoard implements OnModuleInit {
  constructor(
    @InjectBullBoard() private readonly board: BullBoardInstance,
    private readonly modelQueues: ModelQueues,
  ) {}

  onModuleInit(): void {
    for (const queue of this.modelQueues.all()) this.board.addQueue(new BullMQAdapter(queue));
  }
}
