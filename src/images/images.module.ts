import { Module } from '@nestjs/common';
import { StoredImagesService } from './stored-images.service';
import { ImagesController } from './images.controller';

/** Stored images (avatars, logo, comment attachments) and the `/uploads/` route that serves them. */
@Module({
  controllers: [ImagesController],
  providers: [StoredImagesService],
  exports: [StoredImagesService],
})
export class ImagesModule {}
