/**
 * A review verdict is a person's decision (spec §3): a PAT may give a build its initial status at
 * upload, but only a signed-in person changes it later (PATCH /builds/:id accepts no PAT). The CLI
 * therefore has no status-changing command and says so whenever that is what the user tried.
 */
export const VERDICT_IS_A_PERSONS_DECISION =
  'A review verdict is a person\'s decision: a token (PAT) can set a build\'s initial status with `svc upload --status`, ' +
  'but it cannot change the status of an existing build. Open the build in the dashboard to change it.';
