import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RecordingEntity } from './recording.entity';
import { RecordingsController } from './recordings.controller';
import { RecordingsService } from './recordings.service';

/** Screen recordings uploaded from the dashboard, kept 72 hours. */
@Module({
  imports: [TypeOrmModule.forFeature([RecordingEntity])],
  controllers: [RecordingsController],
  providers: [RecordingsService],
  exports: [RecordingsService],
})
export class RecordingsModule {}
