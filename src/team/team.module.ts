import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ImagesModule } from '../images/images.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { TeamController } from './team.controller';
import { TeamService } from './team.service';
import { ClusterModule } from '../cluster/cluster.module';

/** Team members: list, role change, deletion (Admin only). */
@Module({
  imports: [ClusterModule, UsersModule, AuthModule, TokensModule, ImagesModule],
  controllers: [TeamController],
  providers: [TeamService],
  // SCIM deletes a member the same way (sessions, PATs, sockets, avatar, member.deleted).
  exports: [TeamService],
})
export class TeamModule {}
