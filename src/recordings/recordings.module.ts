import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RecordingEntity } from './recording.entity';
import { RecordingsRepository } from './recordings.repository';
import { RecordingsController } from './recordings.controller';
import { RecordingsService } from './recordings.service';
import { StorageModule } from '../storage/storage.module';
import { CommonModule } from '../common/common.module';

/** Screen recordings uploaded from the dashboard, kept 72 hours. */
@Module({
  imports: [CommonModule, StorageModule, TypeOrmModule.forFeature([RecordingEntity])],
  controllers: [RecordingsController],
  providers: [RecordingsService, RecordingsRepository],
  exports: [RecordingsService],
})
export class RecordingsModule {}
