import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { BuildsModule } from '../builds/builds.module';
import { ClusterModule } from '../cluster/cluster.module';
import { DeviceSessionsModule } from '../sessions/device-sessions.module';
import { HubBuilds } from './hub/hub-builds';
import { HubSessionsService } from './hub/hub-sessions.service';
import { WebDriverController } from './hub/webdriver.controller';
import { HubDeviceTestResults } from './results/hub-device-test-results';

/** Devices that test (issue 37, docs/device-tests.md): the relay as an Appium hub for the team's own devices. */
@Module({
  imports: [AgentsModule, BuildsModule, ClusterModule, DeviceSessionsModule],
  controllers: [WebDriverController],
  providers: [HubSessionsService, HubBuilds, HubDeviceTestResults],
  // HubDeviceTestResults is what the release gate's DEVICE_TEST_RESULTS token binds to.
  exports: [HubSessionsService, HubDeviceTestResults],
})
export class DeviceTestsModule {}
