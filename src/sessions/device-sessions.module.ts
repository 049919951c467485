import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { DeviceSessionClients } from './device-session-clients.service';
import { DeviceSessionGateway } from './device-session.gateway';
import { DeviceSessionListener } from './device-session.listener';
import { DeviceSessionsController } from './device-sessions.controller';
import { DeviceSessionsService } from './device-sessions.service';

/** Device sessions: REST screenshot / UI tree and automation clients' sockets, through the owning agent. */
@Module({
  imports: [AgentsModule],
  controllers: [DeviceSessionsController],
  providers: [DeviceSessionsService, DeviceSessionGateway, DeviceSessionClients, DeviceSessionListener],
})
export class DeviceSessionsModule {}
