import { CommonModule } from '../common/common.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { IdentityModule } from '../identity/identity.module';
import { TeamModule } from '../team/team.module';
import { PasswordResetModule } from '../password-reset/password-reset.module';
import { RelayModule } from '../relay/relay.module';
import { TokensModule } from '../tokens/tokens.module';
import { TwoFactorModule } from '../two-factor/two-factor.module';
import { UsersModule } from '../users/users.module';
import { ScimDiscoveryController } from './scim-discovery.controller';
import { ScimGroupEntity } from './scim-group.entity';
import { ScimGroupsRepository } from './scim-groups.repository';
import { ScimGroupsController } from './scim-groups.controller';
import { ScimGroupRolesService } from './scim-group-roles.service';
import { ScimGroupsService } from './scim-groups.service';
import { ScimMembersService } from './scim-members.service';
import { ScimTokensController } from './scim-tokens.controller';
import { ScimUsersController } from './scim-users.controller';
import { ClusterModule } from '../cluster/cluster.module';

/**
 * SCIM 2.0 provisioning at /scim/v2 (docs/identity.md "SCIM"): Users, Groups and discovery for
 * identity providers, and the Admin's REST for their tokens. Owns `scim_groups` and their members;
 * the tokens table is the tokens module's (the authenticator checks them).
 */
@Module({
  imports: [ClusterModule, CommonModule, TypeOrmModule.forFeature([ScimGroupEntity]), UsersModule, AuthModule, TokensModule, TeamModule, IdentityModule, TwoFactorModule, PasswordResetModule, RelayModule],
  controllers: [ScimUsersController, ScimGroupsController, ScimDiscoveryController, ScimTokensController],
  providers: [ScimMembersService, ScimGroupsService, ScimGroupRolesService, ScimGroupsRepository],
})
export class ScimModule {}
