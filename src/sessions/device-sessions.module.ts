import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { DeviceSessionClients } from './device-session-clients.service';
import { DeviceSessionGateway } from './device-session.gateway';
import { DeviceSessionListener } from './device-session.listener';
import { DeviceSessionsController } from './device-sessions.controller';
import { DeviceSessionsService } from './device-sessions.service';
import { DevicesController } from './devices.controller';
import { ClusterModule } from '../cluster/cluster.module';
import { MetricsModule } from '../metrics/metrics.module';
import { VideoAcrossInstances } from './video/video-across-instances';
import { VideoHub } from './video/video-hub.service';
import { VideoStreamGateway } from './video/video-stream.gateway';

/** Device sessions: the device list, REST screenshot / UI tree, automation clients' sockets and live video viewers, through the owning agent. */
@Module({
  imports: [MetricsModule, ClusterModule, AgentsModule],
  controllers: [DeviceSessionsController, DevicesController],
  providers: [DeviceSessionsService, DeviceSessionGateway, DeviceSessionClients, DeviceSessionListener, VideoHub, VideoStreamGateway, VideoAcrossInstances],
})
export class DeviceSessionsModule {}
