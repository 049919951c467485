import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppCatalogueModule } from '../app-catalogue/app-catalogue.module';
import { BuildsModule } from '../builds/builds.module';
import { CommonModule } from '../common/common.module';
import { RelayModule } from '../relay/relay.module';
import { BuildReviewsService } from './build-reviews.service';
import { GatePoliciesService } from './gate-policies.service';
import { BuildReviewEntity, ReleaseGatePolicyEntity, ReleaseGateStateEntity } from './release-gate.entities';
import { ReleaseGateController } from './release-gate.controller';
import { ReleaseGateListener } from './release-gate.listener';
import { ReleaseGateRepository } from './release-gate.repository';
import { ReleaseGateService } from './release-gate.service';

/**
 * The release gate (issue 38, docs/release-gate.md): members' reviews, policies per app and team,
 * and each build's gate. Above builds; the forges module reads the gate through ReleaseGateService
 * and hears its changes (GateChangedEvent). Device-test results come through the optional
 * DEVICE_TEST_RESULTS port.
 */
@Module({
  imports: [TypeOrmModule.forFeature([BuildReviewEntity, ReleaseGatePolicyEntity, ReleaseGateStateEntity]), CommonModule, AppCatalogueModule, BuildsModule, RelayModule],
  controllers: [ReleaseGateController],
  providers: [ReleaseGateRepository, GatePoliciesService, ReleaseGateService, BuildReviewsService, ReleaseGateListener],
  exports: [ReleaseGateService],
})
export class ReleaseGateModule {}
