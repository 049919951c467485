import { badRequest } from '../../common/errors/relay-exception';
import { isPositiveId } from '../../common/validation/parse-id.pipe';
import { BUILD_STATUSES, BuildStatus, PLATFORMS, Platform } from '../build-status';

/** The optional text fields of POST /builds (multipart), validated (spec §4). */
export interface UploadBuildFields {
  status: BuildStatus | null;
  label: string | null;
  platform: Platform | null;
  appId: number | null;
}

const LABEL_MAX = 200;

/** Empty strings count as omitted (HTML forms send them for blank inputs). */
export function parseUploadFields(fields: Record<string, string>): UploadBuildFields {
  const text = (name: string) => {
    const value = fields[name]?.trim();
    return value ? value : null;
  };
  const status = text('status');
  if (status !== null && !(BUILD_STATUSES as readonly string[]).includes(status)) {
    throw badRequest('status must be one of Backlog, In Progress, Done, Rejected');
  }
  const platform = text('platform');
  if (platform !== null && !(PLATFORMS as readonly string[]).includes(platform)) {
    throw badRequest('platform must be ios or android');
  }
  const appId = text('app_id');
  if (appId !== null && !isPositiveId(appId)) throw badRequest('app_id must be a positive integer');
  const label = text('label');
  if (label !== null && label.length > LABEL_MAX) throw badRequest(`label must be at most ${LABEL_MAX} characters`);
  return {
    status: status as BuildStatus | null,
    label,
    platform: platform as Platform | null,
    appId: appId === null ? null : Number(appId),
  };
}
