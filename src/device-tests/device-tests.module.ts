import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '../agents/agents.module';
import { BuildsModule } from '../builds/builds.module';
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

/** Devices that test (issue 37, docs/device-tests.md): the relay as an Appium hub for the team's own devices. */
@Module({
  imports: [CommonModule, StorageModule, AgentsModule, BuildsModule, DeviceSessionsModule, RecordingsModule, TypeOrmModule.forFeature([HubSessionRecordEntity])],
  controllers: [WebDriverController, DeviceTestSessionsController],
  providers: [HubSessionsService, HubBuilds, HubDeviceTestResults, HubSessionEvidence, HubSessionsRepository, DeviceTestSessionsService],
  // HubDeviceTestResults is what the release gate's DEVICE_TEST_RESULTS token binds to; HubSessionEvidence's purge is the scheduled purges'.
  exports: [HubSessionsService, HubDeviceTestResults, HubSessionEvidence],
})
export class DeviceTestsModule {}
