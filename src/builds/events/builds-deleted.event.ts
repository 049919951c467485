export type BuildDeletionReason = 'purged' | 'app_deleted' | 'file_missing';

/**
 * Builds were deleted (purged after their schedule, removed with their app, or swept because their
 * file was missing). Emitted after the commit, fire-and-forget; features that keep per-build data
 * (comments and their attachments, recordings) listen to clean up.
 */
export class BuildsDeletedEvent {
  static readonly eventName = 'builds.deleted';
  constructor(
    readonly buildIds: number[],
    readonly reason: BuildDeletionReason,
  ) {}
}
