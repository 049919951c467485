import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ScimTokenEntity } from './scim-token.entity';
import { ScimTokensService } from './scim-tokens.service';
import { PersonalAccessTokenEntity } from './personal-access-token.entity';
import { TokenLastUse } from './token-last-use';
import { TokenLookups } from './token-lookups';
import { TokensController } from './tokens.controller';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';
import { ScimTokensRepository } from './scim-tokens.repository';
import { CommonModule } from '../common/common.module';
import { ClusterModule } from '../cluster/cluster.module';

/** Personal access tokens, and the SCIM bearer tokens identity providers provision with. */
@Module({
  imports: [ClusterModule, CommonModule, TypeOrmModule.forFeature([PersonalAccessTokenEntity, ScimTokenEntity])],
  controllers: [TokensController],
  providers: [TokensService, TokensRepository, TokenLastUse, TokenLookups, ScimTokensService, ScimTokensRepository],
  exports: [TokensService, ScimTokensService],
})
export class TokensModule {}
