import { Module } from '@nestjs/common';
import { UploadsModule } from '../uploads/uploads.module';
import { TeamController } from './team.controller';
import { TeamService } from './team.service';

/** Team members: list, role change, deletion (Admin only). Users, sessions and tokens come from the global AuthModule. */
@Module({
  imports: [UploadsModule],
  controllers: [TeamController],
  providers: [TeamService],
})
export class TeamModule {}
