import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LiveEventsController } from './live-events.controller';
import { LiveEventsListener } from './live-events.listener';
import { LiveEventsService } from './live-events.service';
import { CommonModule } from '../common/common.module';

/** GET /events: server-sent events for the dashboard (builds, comments, the member's own session). */
@Module({
  imports: [CommonModule, AuthModule],
  controllers: [LiveEventsController],
  providers: [LiveEventsService, LiveEventsListener],
  exports: [LiveEventsService],
})
export class LiveEventsModule {}
