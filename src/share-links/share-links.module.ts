import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BuildsModule } from '../builds/builds.module';
import { RelayModule } from '../relay/relay.module';
import { InstallPageController } from './install-page.controller';
import { ShareLinkEntity } from './share-link.entity';
import { ShareLinksRepository } from './share-links.repository';
import { ShareLinksController } from './share-links.controller';
import { ShareLinksService } from './share-links.service';
import { CommonModule } from '../common/common.module';
import { SecretBox } from '../common/crypto/secret-box';
import { RelayConfig } from '../config/relay-config';
import { AuthModule } from '../auth/auth.module';
import { SettingsModule } from '../settings/settings.module';

/**
 * Share links of builds (docs/builds.md "Share links"): made, listed and revoked by members; the
 * install page and download they open for anyone holding one (the team's name and logo on it, a
 * password braked like sign-ins). Beside builds, through its exported
 * services; a deleted build ends its links by the foreign key (SET NULL), so no listener is needed.
 */
@Module({
  imports: [CommonModule, TypeOrmModule.forFeature([ShareLinkEntity]), BuildsModule, RelayModule, AuthModule, SettingsModule],
  controllers: [ShareLinksController, InstallPageController],
  providers: [
    ShareLinksService,
    ShareLinksRepository,
    // Seals link tokens so writers can copy a link again (the forges' box, same key and class).
    { provide: SecretBox, useFactory: (config: RelayConfig) => new SecretBox(config.secretsKey), inject: [RelayConfig] },
  ],
  // Forges put an install link of each build into its pull request's comment.
  exports: [ShareLinksService],
})
export class ShareLinksModule {}
