import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { DeviceSessionClients } from './device-session-clients.service';
import { DeviceSessionGateway } from './device-session.gateway';
import { DeviceSessionListener } from './device-session.listener';
import { DeviceSessionsController } from './device-sessions.controller';
import { DeviceSessionsService } from './device-sessions.service';
import { DeviceReservations } from './device-reservations.service';
import { DevicesController } from './devices.controller';
import { ClusterModule } from '../cluster/cluster.module';
import { MetricsModule } from '../metrics/metrics.module';
import { VideoAcrossInstances } from './video/video-across-instances';
import { VideoHub } from './video/video-hub.service';
import { VideoStreamGateway } from './video/video-stream.gateway';
import { RecordingsModule } from '../recordings/recordings.module';
import { SessionRecordingsController } from './recording/session-recordings.controller';
import { SessionRecordingsService } from './recording/session-recordings.service';

/** Device sessions: the device list, REST screenshot / UI tree, automation clients' sockets, live video viewers and session recordings, through the owning agent. */
@Module({
  imports: [MetricsModule, ClusterModule, AgentsModule, RecordingsModule],
  controllers: [DeviceSessionsController, DevicesController, SessionRecordingsController],
  providers: [DeviceSessionsService, DeviceReservations, DeviceSessionGateway, DeviceSessionClients, DeviceSessionListener, VideoHub, VideoStreamGateway, VideoAcrossInstances, SessionRecordingsService],
  exports: [DeviceSessionsService, DeviceReservations, SessionRecordingsService],
})
export class DeviceSessionsModule {}
