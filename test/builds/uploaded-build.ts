/** The exact upload response (spec §2 Build, upload summary) for a fixture's expected metadata. */
export function uploadedBuild(expected: {
  name: string | null;
  version_name: string | null;
  build_number: string | null;
  bundle_id: string | null;
  platform: string | null;
}): Record<string, unknown> {
  return {
    id: expect.any(Number),
    app_id: expect.any(Number),
    name: expected.name,
    version_name: expected.version_name,
    build_number: expected.build_number,
    bundle_id: expected.bundle_id,
    status_label: null,
    platform: expected.platform,
    uploaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  };
}
