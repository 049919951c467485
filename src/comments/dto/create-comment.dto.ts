import { IsInt, IsNotEmpty, IsString, MaxLength, Min } from 'class-validator';
import { ToId, Trim } from '../../common/validation/transforms';
import { CommentMessages } from '../comment-messages';

export const COMMENT_BODY_MAX = 10_000;
const BUILD_ID_RULE = 'build_id must be a positive integer';

/** POST /comments text fields (multipart; the file `attachment` is optional), read with validateFields(). */
export class CreateCommentFields {
  /** readId's rule, after trimming (transforms run top-down); past MAX_ID the service answers 404. */
  @Trim()
  @ToId()
  @Min(1, { message: BUILD_ID_RULE })
  @IsInt({ message: BUILD_ID_RULE })
  build_id: number;

  @Trim()
  @MaxLength(COMMENT_BODY_MAX, { message: `body must be at most ${COMMENT_BODY_MAX} characters` })
  @IsNotEmpty({ message: CommentMessages.bodyRequired })
  @IsString({ message: CommentMessages.bodyRequired })
  body: string;
}
