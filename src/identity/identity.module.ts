import { CommonModule } from '../common/common.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { BreakGlassController } from './break-glass.controller';
import { BreakGlassService } from './break-glass.service';
import { LdapDirectoryService } from './ldap-directory.service';
import { OidcSignInService } from './oidc-sign-in.service';
import { SsoIdentityEntity } from './sso-identity.entity';
import { SsoIdentitiesRepository } from './sso-identities.repository';
import { SsoMembersService } from './sso-members.service';
import { ClusterModule } from '../cluster/cluster.module';

/**
 * External identities (docs/identity.md): the OpenID provider and LDAP directory clients, and the
 * members they stand for (provisioning, linking, roles from groups). Owns `sso_identities`.
 * Sessions are the auth module's: it imports this one.
 */
@Module({
  imports: [ClusterModule, CommonModule, TypeOrmModule.forFeature([SsoIdentityEntity]), UsersModule],
  controllers: [BreakGlassController],
  providers: [SsoMembersService, SsoIdentitiesRepository, OidcSignInService, LdapDirectoryService, BreakGlassService],
  exports: [SsoMembersService, OidcSignInService, LdapDirectoryService],
})
export class IdentityModule {}
