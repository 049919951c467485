import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppCatalogueModule } from '../app-catalogue/app-catalogue.module';
import { CommonModule } from '../common/common.module';
import { BuildsModule } from '../builds/builds.module';
import { MailModule } from '../mail/mail.module';
import { RelayModule } from '../relay/relay.module';
import { SettingsModule } from '../settings/settings.module';
import { ShareLinksModule } from '../share-links/share-links.module';
import { LatestBuildService } from './latest-build.service';
import { LatestInstallController } from './latest-install.controller';
import { TesterNoticesListener } from './tester-notices.listener';
import { TesterNoticesService } from './tester-notices.service';
import { LatestLinkEntity, TesterEntity, TesterLinkEntity } from './tester.entity';
import { TestersController } from './testers.controller';
import { TestersRepository } from './testers.repository';
import { TestersService } from './testers.service';

/**
 * Testers per app (issue 39 item 1, docs/integrations.md "Testers"): people without an account
 * e-mailed (through the outbox) a share link of their own when a build lands, one-click
 * unsubscribe, refusals shown to Admins; and permanent "latest build" links.
 */
@Module({
  imports: [TypeOrmModule.forFeature([TesterEntity, TesterLinkEntity, LatestLinkEntity]), CommonModule, AppCatalogueModule, BuildsModule, MailModule, RelayModule, SettingsModule, ShareLinksModule],
  controllers: [TestersController, LatestInstallController],
  providers: [TestersRepository, TestersService, TesterNoticesService, TesterNoticesListener, LatestBuildService],
})
export class TestersModule {}
