import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppCatalogueModule } from '../app-catalogue/app-catalogue.module';
import { BuildsModule } from '../builds/builds.module';
import { CommonModule } from '../common/common.module';
import { DeviceTestsModule } from '../device-tests/device-tests.module';
import { BuildDeviceTests } from '../device-tests/runs/build-device-tests';
import { RelayModule } from '../relay/relay.module';
import { DEVICE_TEST_RESULTS } from './device-test-results';
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
 * and hears its changes (GateChangedEvent). Device-test results come through the
 * DEVICE_TEST_RESULTS port, bound to the WebDriver hub's results.
 */
@Module({
  imports: [TypeOrmModule.forFeature([BuildReviewEntity, ReleaseGatePolicyEntity, ReleaseGateStateEntity]), CommonModule, AppCatalogueModule, BuildsModule, RelayModule, DeviceTestsModule],
  controllers: [ReleaseGateController],
  providers: [
    ReleaseGateRepository,
    GatePoliciesService,
    ReleaseGateService,
    BuildReviewsService,
    ReleaseGateListener,
    // The device-tests rule reads the hub's sessions and the builds' stored test runs (JUnit).
    { provide: DEVICE_TEST_RESULTS, useExisting: BuildDeviceTests },
  ],
  exports: [ReleaseGateService, BuildReviewsService],
})
export class ReleaseGateModule {}
