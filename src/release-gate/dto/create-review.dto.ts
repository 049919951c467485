import { IsIn, IsObject, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';
import { BlankAsAbsent, Trim } from '../../common/validation/transforms';
import { REVIEW_VERDICTS, type ReviewVerdict } from '../release-gate.entities';

export const REVIEW_COMMENT_MAX = 10_000;

/** POST /builds/:id/reviews. */
export class CreateReviewDto {
  @ApiProperty({ enum: REVIEW_VERDICTS })
  @IsIn(REVIEW_VERDICTS, { message: `verdict must be one of: ${REVIEW_VERDICTS.join(', ')}` })
  verdict: ReviewVerdict;

  @ApiProperty({ required: false, type: String, nullable: true, maxLength: REVIEW_COMMENT_MAX })
  @IsOptional()
  @Trim()
  @BlankAsAbsent()
  @IsString({ message: 'comment must be a string' })
  @MaxLength(REVIEW_COMMENT_MAX, { message: `comment must be at most ${REVIEW_COMMENT_MAX} characters` })
  comment?: string | null;
}

/** PUT /release-gate/policies/…: the policy in svc.config.json's shape, or null to remove it. */
export class SavePolicyDto {
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'approvals, adminCountsForAnyRole, excludeUploader, noRequestChanges, blockDone, carryForward, rules (docs/release-gate.md); null removes it',
  })
  @ValidateIf((o: SavePolicyDto) => o.policy !== null)
  @IsObject({ message: 'policy must be an object (svc.config.json\'s shape), or null to remove it' })
  policy: Record<string, unknown> | null;
}
