import { Module } from '@nestjs/common';
import { ImagesModule } from '../images/images.module';
import { UsersModule } from '../users/users.module';
import { ProfileController } from './profile.controller';
import { ProfileService } from './profile.service';

/** The signed-in member's display name and avatar. */
@Module({
  imports: [UsersModule, ImagesModule],
  controllers: [ProfileController],
  providers: [ProfileService],
})
export class ProfileModule {}
