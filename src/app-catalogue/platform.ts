/**
 * The platform a build is for. It lives with the catalogue, the lowest module that needs it (an
 * app is found by bundle id and platform), so builds, apps and the catalogue import it downwards.
 */
export const PLATFORMS = ['ios', 'android'] as const;
export type Platform = (typeof PLATFORMS)[number];
