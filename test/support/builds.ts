import { attachBuild } from './build-fixtures';
import type { MemberFactory, TestMember } from './factory';

/** Uploads a real build fixture through POST /builds and returns its id and app id. */
export async function uploadTestBuild(members: MemberFactory, uploader: TestMember): Promise<{ id: number; appId: number }> {
  const res = await attachBuild(members.as(uploader, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
  return { id: res.body.id, appId: res.body.app_id };
}
