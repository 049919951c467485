/** A comment was posted on a build (after the commit). */
export class CommentPostedEvent {
  static readonly eventName = 'comment.posted';
  constructor(
    readonly commentId: number,
    readonly buildId: number,
  ) {}
}
