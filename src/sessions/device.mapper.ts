import { ApiProperty } from '@nestjs/swagger';
import type { SessionPlace } from '../agents/agent-locator.service';
import { isoWithMillis } from '../common/time';
import type { DeviceHolder } from './device-reservations.service';

/** The automated session holding a device (docs/device-tests.md). */
export class DeviceHolderItem {
  @ApiProperty({
    nullable: true,
    type: String,
    description: "the WebDriver session id the client uses: its commands go by it alone, so only an Admin and the session's own member see it (null for others)",
  })
  session_id: string | null;
  @ApiProperty({ example: 'Ada Lovelace', description: 'the member whose token opened it' })
  member: string;
  @ApiProperty({ nullable: true, type: Number, description: 'the build installed for it (svc:build)' })
  build_id: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'its run name (svc:name)' })
  run: string | null;
  @ApiProperty({ format: 'date-time' })
  since: string;
}

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
  @ApiProperty({ type: DeviceHolderItem, nullable: true, description: 'beyond the spec: the automated session holding the device, or null' })
  holder: DeviceHolderItem | null;
}

/** GET /devices. */
export class DeviceList {
  @ApiProperty({ type: [DeviceListItem] })
  items: DeviceListItem[];
}

/** Who may see a holder's WebDriver session id (the key its commands go by): an Admin, or the member who opened it. */
export type SessionIdReader = { userId: number; role: string };

export function toDeviceListItem(place: SessionPlace, holder: DeviceHolder | null = null, reader: SessionIdReader | null = null): DeviceListItem {
  const { device, agentName, connection, instanceId } = place;
  return {
    session_id: device.sessionId,
    name: device.name,
    platform: device.platform,
    state: device.state,
    os_version: device.osVersion,
    agent: agentName,
    agent_online: connection ? connection.open : instanceId !== null,
    holder: holder && {
      session_id: reader && (reader.role === 'Admin' || reader.userId === holder.userId) ? holder.hubSessionId : null,
      member: holder.member,
      build_id: holder.buildId,
      run: holder.runName,
      since: isoWithMillis(holder.since),
    },
  };
}
