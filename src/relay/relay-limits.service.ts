import { Injectable } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import type { RelayLimits } from './relay.mapper';

/** The configured limits a client can check before sending a file, so a refusal comes before the upload, not after it. */
@Injectable()
export class RelayLimitsService {
  constructor(private readonly config: RelayConfig) {}

  limits(): RelayLimits {
    return { max_build_bytes: this.config.maxBuildBytes };
  }
}
