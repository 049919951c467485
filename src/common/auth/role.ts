export const ROLES = ['Admin', 'Developer', 'QA', 'Viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Roles that may change things (everyone but Viewer). */
export const WRITER_ROLES: Role[] = ['Admin', 'Developer', 'QA'];
export const ADMIN_ONLY: Role[] = ['Admin'];
