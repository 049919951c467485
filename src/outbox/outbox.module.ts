import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClusterModule } from '../cluster/cluster.module';
import { CommonModule } from '../common/common.module';
import { OutboxController } from './outbox.controller';
import { OutboxMessageEntity } from './outbox-message.entity';
import { OutboxRepository } from './outbox.repository';
import { OutboxService } from './outbox.service';
import { OutboxWorker } from './outbox-worker';

/**
 * The one delivery path for outgoing calls (docs/integrations.md "One delivery path"): features
 * queue messages with OutboxService and register a sender for their kind; the worker sends them
 * with the forge outbox's retry policy. It knows no feature: senders come to it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OutboxMessageEntity]), CommonModule, ClusterModule],
  controllers: [OutboxController],
  providers: [OutboxRepository, OutboxWorker, OutboxService],
  exports: [OutboxService],
})
export class OutboxModule {}
