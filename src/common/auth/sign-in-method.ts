/**
 * How a session's member proved who they are: the relay's own password, or an identity provider
 * (the OpenID provider, or the LDAP directory behind the sign-in form). Recorded on the session
 * because the two-factor policy depends on it, not on the member (docs/identity.md "Links and the
 * two-factor policy").
 */
export type SignInMethod = 'password' | 'oidc' | 'ldap';
