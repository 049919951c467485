/** The fixed messages invitations answer with (kept apart so DTOs and the service share them). */
export const InvitationMessages = {
  alreadyMember: 'This e-mail already belongs to a member',
  accountExists: 'An account with this e-mail already exists',
  emailRequired: 'email is required: this invitation was created without an e-mail address',
  tokenRequired: 'token is required',
  notFound: 'Invitation not found',
} as const;
