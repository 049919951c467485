import { Module } from '@nestjs/common';
import { PublicUrlService } from './public-url.service';
import { RelayController } from './relay.controller';
import { RelayHostDetailsService } from './relay-host-details.service';
import { RelayLimitsService } from './relay-limits.service';

/** How the relay is reached (host details, the public URL used in links) and the limits clients check before sending. */
@Module({
  controllers: [RelayController],
  providers: [PublicUrlService, RelayHostDetailsService, RelayLimitsService],
  exports: [PublicUrlService, RelayHostDetailsService],
})
export class RelayModule {}
