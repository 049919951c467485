import { fileSize } from './format';

const MB = 1024 * 1024;

/** What the relay accepts for an image field (spec §4, `IMAGE_RULES` on the server). */
export interface ImageRule {
  types: string[];
  maxBytes: number;
  describe: string;
}

export const PROFILE_IMAGE: ImageRule = { types: ['image/png', 'image/jpeg'], maxBytes: 2 * MB, describe: 'a PNG or JPEG image of at most 2 MB' };
export const COMMENT_IMAGE: ImageRule = {
  types: ['image/png', 'image/jpeg', 'image/webp'],
  maxBytes: 5 * MB,
  describe: 'a PNG, JPEG or WebP image of at most 5 MB',
};

const named = (file: File) => file.name || 'The pasted image';

/**
 * Why the relay would refuse this image, said before a byte is sent (it checks again, by content):
 * null when it would take it.
 */
export function imageProblem(file: File, rule: ImageRule): string | null {
  if (!rule.types.includes(file.type)) return `${named(file)} is not ${rule.describe}.`;
  if (file.size > rule.maxBytes) return `${named(file)} is ${fileSize(file.size)}: it must be ${rule.describe}.`;
  return null;
}

/** The build files the relay takes (spec §4 POST /builds); `.zip` covers `.app.zip`. */
export const BUILD_EXTENSIONS = ['.apk', '.app.zip', '.zip', '.tar.gz', '.tgz'];

/** Why the relay would refuse this build file by its name or size (null: send it; the relay inspects the rest). */
export function buildFileProblem(file: File, maxBytes: number | null): string | null {
  const name = file.name.toLowerCase();
  if (!BUILD_EXTENSIONS.some((extension) => name.endsWith(extension))) {
    const hint = name.endsWith('.ipa') ? ' (an .ipa is a device build; upload a simulator build)' : name.endsWith('.aab') ? ' (an .aab is a bundle; upload an .apk)' : '';
    return `${file.name} is not a build the relay takes${hint}: upload an .apk, .app.zip, .tar.gz or .tgz file.`;
  }
  if (maxBytes !== null && file.size > maxBytes) {
    return `${file.name} is ${fileSize(file.size)}: this relay takes builds of at most ${fileSize(maxBytes)}.`;
  }
  return null;
}
