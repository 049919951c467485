import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

/** PUT /settings/review (beyond the spec): the team's review policy, and its answer. */
export class ReviewPolicyDto {
  @ApiProperty({ description: 'rejecting asks for a reason: a comment by the same member within 10 minutes before (docs/builds.md)' })
  @IsBoolean({ message: 'reject_reason_required must be true or false' })
  reject_reason_required: boolean;
}
