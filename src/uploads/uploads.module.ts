import { Module } from '@nestjs/common';
import { StoredImagesService } from './stored-images.service';
import { UploadsController } from './uploads.controller';

/** Stored images (avatars, logo, comment attachments) and the `/uploads/` route that serves them. */
@Module({
  controllers: [UploadsController],
  providers: [StoredImagesService],
  exports: [StoredImagesService],
})
export class UploadsModule {}
