import { ApiProperty } from '@nestjs/swagger';
import type { SessionPlace } from '../agents/agent-locator.service';

/** One device as its agent last listed it (GET /devices). */
export class DeviceListItem {
  @ApiProperty({ example: 'ios-7F3A…', description: 'the device session id used by /sessions/:sessionId/…' })
  session_id: string;
  @ApiProperty({ example: 'iPhone 16' })
  name: string;
  @ApiProperty({ example: 'ios', description: 'as the agent reports it (ios, android)' })
  platform: string;
  @ApiProperty({ enum: ['booted', 'shutdown'] })
  state: string;
  @ApiProperty({ example: '18.2' })
  os_version: string;
  @ApiProperty({ example: 'mac-mini-3', description: 'name of the agent that listed the device' })
  agent: string;
  @ApiProperty({ description: 'whether that agent is connected now; requests to an offline agent answer 502' })
  agent_online: boolean;
}

/** GET /devices. */
export class DeviceList {
  @ApiProperty({ type: [DeviceListItem] })
  items: DeviceListItem[];
}

export function toDeviceListItem(place: SessionPlace): DeviceListItem {
  const { device, agentName, connection, instanceId } = place;
  return {
    session_id: device.sessionId,
    name: device.name,
    platform: device.platform,
    state: device.state,
    os_version: device.osVersion,
    agent: agentName,
    agent_online: connection ? connection.open : instanceId !== null,
  };
}
