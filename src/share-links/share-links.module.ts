import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BuildsModule } from '../builds/builds.module';
import { RelayModule } from '../relay/relay.module';
import { InstallPageController } from './install-page.controller';
import { ShareLinkEntity } from './share-link.entity';
import { ShareLinksController } from './share-links.controller';
import { ShareLinksService } from './share-links.service';
import { CommonModule } from '../common/common.module';

/**
 * Share links of builds (docs/builds.md "Share links"): made, listed and revoked by members; the
 * install page and download they open for anyone holding one. Beside builds, through its exported
 * services; a deleted build ends its links by the foreign key (SET NULL), so no listener is needed.
 */
@Module({
  imports: [CommonModule, TypeOrmModule.forFeature([ShareLinkEntity]), BuildsModule, RelayModule],
  controllers: [ShareLinksController, InstallPageController],
  providers: [ShareLinksService],
  // Forges put an install link of each build into its pull request's comment.
  exports: [ShareLinksService],
})
export class ShareLinksModule {}
