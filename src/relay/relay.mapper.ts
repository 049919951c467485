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
}

/**
 * Beyond the spec, so /relay/host keeps exactly the spec's four fields: the limits the dashboard
 * checks before a file is sent (the relay checks again). snake_case like the relay's other additions.
 */
export class RelayLimits {
  @ApiProperty({ description: 'the largest build the relay accepts, in bytes (SVC_MAX_BUILD_BYTES)' })
  max_build_bytes: number;
}
