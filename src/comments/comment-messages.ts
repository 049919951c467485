/** The fixed messages comments answer with (kept apart so DTOs and the service share them). */
export const CommentMessages = {
  notFound: 'Comment not found',
  notAuthor: 'Only the author or an Admin can delete this comment',
  bodyRequired: 'body is required',
} as const;
