import { ApiProperty } from '@nestjs/swagger';

/** spec §2 "Relay host details". */
export class RelayHostDetails {
  @ApiProperty({ type: String, nullable: true, description: 'LAN address; always null inside a container' })
  lanHost: string | null;
  @ApiProperty()
  port: number;
  @ApiProperty({ type: String, nullable: true })
  publicBaseUrl: string | null;
  @ApiProperty({ type: String, nullable: true })
  agentRelayUrl: string | null;
  @ApiProperty({ description: 'beyond the spec: the largest build the relay accepts, in bytes (SVC_MAX_BUILD_BYTES), for checks before a file is sent' })
  maxBuildBytes: number;
}
