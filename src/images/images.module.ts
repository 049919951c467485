import { Module } from '@nestjs/common';
import { StoredImagesService } from './stored-images.service';
import { ImagesController } from './images.controller';
import { StorageModule } from '../storage/storage.module';

/** Stored images (avatars, logo, comment attachments) and the `/uploads/` route that serves them. */
@Module({
  imports: [StorageModule],
  controllers: [ImagesController],
  providers: [StoredImagesService],
  exports: [StoredImagesService],
})
export class ImagesModule {}
