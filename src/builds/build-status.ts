export const BUILD_STATUSES = ['Backlog', 'In Progress', 'Done', 'Rejected'] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];
export const PLATFORMS = ['ios', 'android'] as const;
export type Platform = (typeof PLATFORMS)[number];
