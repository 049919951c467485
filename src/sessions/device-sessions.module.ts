import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { DeviceSessionClients } from './device-session-clients.service';
import { DeviceSessionGateway } from './device-session.gateway';
import { DeviceSessionListener } from './device-session.listener';
import { DeviceSessionsController } from './device-sessions.controller';
import { DeviceSessionsService } from './device-sessions.service';
import { DevicesController } from './devices.controller';
import { MetricsModule } from '../metrics/metrics.module';

/** Device sessions: the device list, REST screenshot / UI tree and automation clients' sockets, through the owning agent. */
@Module({
  imports: [MetricsModule, AgentsModule],
  controllers: [DeviceSessionsController, DevicesController],
  providers: [DeviceSessionsService, DeviceSessionGateway, DeviceSessionClients, DeviceSessionListener],
})
export class DeviceSessionsModule {}
