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

/** Beyond the spec, for the Relay page: what about the relay's configured addresses an Admin should fix. */
export class RelayWarnings {
  @ApiProperty({
    type: [String],
    description: 'one sentence each, e.g. a relay.url nobody else can open ("relay.url http://127.0.0.1:4950 is loopback: not used for links…"); empty when none',
  })
  warnings: string[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'why /relay/host has no lanHost: "bound to 127.0.0.1" (SVC_HOST is loopback), "runs in a container", "no LAN interface"; null when it has one',
  })
  lan_reason: string | null;
}
