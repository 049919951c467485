import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PayloadPool } from '../platform/ws/payload-pool';
import { AgentDirectory } from './agent-directory.service';
import { AgentMetrics } from './agent-metrics';
import { AgentGateway } from './agent.gateway';
import { AgentLocator } from './agent-locator.service';
import { AgentRouter } from './agent-router.service';
import { AgentRevocationListener } from './agent-revocation.listener';
import { AgentRpcService } from './agent-rpc.service';
import { AgentsController } from './agents.controller';
import { AgentStatusService } from './agent-status';
import { AgentVideoFeed } from './agent-video-feed';
import { AgentResourceSampleEntity } from './resources/agent-resource-sample.entity';
import { AgentResourcesRepository } from './resources/agent-resources.repository';
import { AgentResourcesService } from './resources/agent-resources.service';
import { ClusterModule } from '../cluster/cluster.module';
import { MetricsModule } from '../metrics/metrics.module';
import { CommonModule } from '../common/common.module';

/** Agents over WebSocket (agent-protocol.md §1–2), their revocation, and their resource history. */
@Module({
  imports: [CommonModule, MetricsModule, ClusterModule, TypeOrmModule.forFeature([AgentResourceSampleEntity])],
  controllers: [AgentsController],
  providers: [
    AgentGateway,
    AgentDirectory,
    AgentRpcService,
    AgentLocator,
    AgentRouter,
    AgentRevocationListener,
    AgentResourcesRepository,
    AgentResourcesService,
    AgentMetrics,
    AgentStatusService,
    AgentVideoFeed,
    // Filled by the agent sockets (the ws piece takes it at start-up), handed back by whoever wrote a screenshot.
    { provide: PayloadPool, useFactory: () => new PayloadPool() },
  ],
  exports: [AgentDirectory, AgentLocator, AgentRouter, AgentRpcService, AgentResourcesService, AgentVideoFeed, PayloadPool],
})
export class AgentsModule {}
