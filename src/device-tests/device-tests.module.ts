import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '../agents/agents.module';
import { BuildsModule } from '../builds/builds.module';
import { ClusterModule } from '../cluster/cluster.module';
import { CommonModule } from '../common/common.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { DeviceSessionsModule } from '../sessions/device-sessions.module';
import { StorageModule } from '../storage/storage.module';
import { DeviceTestSessionsController } from './evidence/device-test-sessions.controller';
import { DeviceTestSessionsService } from './evidence/device-test-sessions.service';
import { HubSessionEvidence } from './evidence/hub-session-evidence.service';
import { HubSessionRecordEntity } from './evidence/hub-session-record.entity';
import { HubSessionsRepository } from './evidence/hub-sessions.repository';
import { HubBuilds } from './hub/hub-builds';
import { HubSessionsService } from './hub/hub-sessions.service';
import { WebDriverController } from './hub/webdriver.controller';
import { HubDeviceTestResults } from './results/hub-device-test-results';
import { AbandonedRunSessions } from './runs/abandoned-run-sessions';
import { BuildDeviceTests } from './runs/build-device-tests';
import { HubRunSessions } from './runs/hub-run-sessions.listener';
import { DeviceTestCaseEntity, DeviceTestRunEntity, DeviceTestSessionEntity } from './runs/test-run.entities';
import { TestRunsController } from './runs/test-runs.controller';
import { TestRunsRepository } from './runs/test-runs.repository';
import { TestRunsService } from './runs/test-runs.service';

/** Devices that test (issue 37, docs/device-tests.md): the relay as an Appium hub for the team's own devices, and the builds' test runs. */
@Module({
  imports: [
    TypeOrmModule.forFeature([DeviceTestRunEntity, DeviceTestCaseEntity, DeviceTestSessionEntity, HubSessionRecordEntity]),
    CommonModule,
    StorageModule,
    AgentsModule,
    BuildsModule,
    ClusterModule,
    DeviceSessionsModule,
    RecordingsModule,
  ],
  controllers: [WebDriverController, TestRunsController, DeviceTestSessionsController],
  providers: [
    HubSessionsService,
    HubBuilds,
    HubDeviceTestResults,
    TestRunsRepository,
    TestRunsService,
    HubRunSessions,
    AbandonedRunSessions,
    BuildDeviceTests,
    HubSessionEvidence,
    HubSessionsRepository,
    DeviceTestSessionsService,
  ],
  // BuildDeviceTests is what the release gate's DEVICE_TEST_RESULTS token binds to, and what the PR status reads;
  // HubSessionEvidence's purge is the scheduled purges'.
  exports: [HubSessionsService, HubDeviceTestResults, BuildDeviceTests, TestRunsService, HubSessionEvidence],
})
export class DeviceTestsModule {}
