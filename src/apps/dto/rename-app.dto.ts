import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';

export class RenameAppDto {
  @ApiProperty({ maxLength: 200, example: 'Example' })
  @Trim()
  @MaxLength(200, { message: 'name must be at most 200 characters' })
  @IsNotEmpty({ message: 'name is required' })
  @IsString({ message: 'name is required' })
  name: string;
}
