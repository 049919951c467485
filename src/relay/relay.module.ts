import { Module } from '@nestjs/common';
import { PublicUrlService } from './public-url.service';
import { RelayController } from './relay.controller';
import { RelayHostDetailsService } from './relay-host-details.service';

/** How the relay is reached: host details and the public URL used in links. */
@Module({
  controllers: [RelayController],
  providers: [PublicUrlService, RelayHostDetailsService],
  exports: [PublicUrlService, RelayHostDetailsService],
})
export class RelayModule {}
