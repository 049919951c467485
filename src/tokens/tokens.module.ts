import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ScimTokenEntity } from './scim-token.entity';
import { ScimTokensService } from './scim-tokens.service';
import { PersonalAccessTokenEntity } from './personal-access-token.entity';
import { TokensController } from './tokens.controller';
import { TokensService } from './tokens.service';
import { CommonModule } from '../common/common.module';

/** Personal access tokens, and the SCIM bearer tokens identity providers provision with. */
@Module({
  imports: [CommonModule, TypeOrmModule.forFeature([PersonalAccessTokenEntity, ScimTokenEntity])],
  controllers: [TokensController],
  providers: [TokensService, ScimTokensService],
  exports: [TokensService, ScimTokensService],
})
export class TokensModule {}
