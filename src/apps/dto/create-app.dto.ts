import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';
import { APP_PLATFORMS, AppPlatform } from '../../app-catalogue/app.entity';
import { RenameAppDto } from './rename-app.dto';

/** POST /apps: name (as for a rename), bundle_id_key and platform, all required. */
export class CreateAppDto extends RenameAppDto {
  @ApiProperty({ maxLength: 255, example: 'com.example.app' })
  @Trim()
  @MaxLength(255, { message: 'bundle_id_key must be at most 255 characters' })
  @IsNotEmpty({ message: 'bundle_id_key is required' })
  @IsString({ message: 'bundle_id_key is required' })
  bundle_id_key: string;

  @ApiProperty({ enum: APP_PLATFORMS })
  @IsIn(APP_PLATFORMS, { message: 'platform must be one of ios, android, both' })
  platform: AppPlatform;
}
