import type { StatusActor } from '../build-status';

/** A build was uploaded (POST /builds committed). Emitted after the commit, fire-and-forget. */
export class BuildUploadedEvent {
  static readonly eventName = 'build.uploaded';
  constructor(
    readonly buildId: number,
    readonly appId: number,
    readonly uploadedBy: StatusActor,
  ) {}
}
