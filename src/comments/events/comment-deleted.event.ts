/** A comment was deleted by its author or an Admin (after the commit). */
export class CommentDeletedEvent {
  static readonly eventName = 'comment.deleted';
  constructor(
    readonly commentId: number,
    readonly buildId: number,
  ) {}
}
