import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule } from '@bull-board/nestjs';
import { Module } from '@nestjs/common';
import { ALL_QUEUES } from '../../core/queue/queue-name';
import { ModelQueuesBoard } from './model-queues-board';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { OperatorTokensService } from '../auth/operator-tokens.service';
import { CreditsModule } from '../credits/credits.module';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { bullBoardAuth } from './bull-board-auth';
import { DemoAccountSeeder } from './demo-account.seeder';
import { AccountDirectoryRepository } from './account-directory.repository';
import { OperatorViewsController } from './operator-views.controller';
import { OperatorViewsService } from './operator-views.service';
import { QueueOverviewReader } from './queue-overview.reader';
import { SettledResultsRepository } from './settled-results.repository';

export const BULL_BOARD_ROUTE = '/admin/queues';

/** The operator services, without HTTP: what the admin command line and a development run's seeding need. */
@Module({
  imports: [AccountsModule, AuthModule, CreditsModule],
  providers: [AdminService, DemoAccountSeeder],
  exports: [AdminService, DemoAccountSeeder],
})
export class AdminServicesModule {}

/** The admin HTTP API and Bull Board, for the API process. */
@Module({
  imports: [
    AdminServicesModule,
    AccountsModule,
    CreditsModule,
    BullBoardModule.forRootAsync({
      imports: [AuthModule],
      inject: [OperatorTokensService],
      useFactory: (operatorTokens: OperatorTokensService) => ({
        route: BULL_BOARD_ROUTE,
        adapter: ExpressAdapter,
        middleware: bullBoardAuth(operatorTokens),
      }),
    }),
    BullBoardModule.forFeature(...ALL_QUEUES.map((name) => ({ name, adapter: BullMQAdapter }))),
  ],
  controllers: [AdminController, OperatorViewsController],
  providers: [
    ModelQueuesBoard,
    AccountDirectoryRepository,
    OperatorViewsService,
    QueueOverviewReader,
    SettledResultsRepository,
  ],
})
export class AdminModule {}
