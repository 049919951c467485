import { randomHex } from '../../common/crypto/secret-token';

/**
 * The only form a resumable upload id takes: the creator's user id, a dash, 32 lowercase hex
 * digits. Nothing else may reach @tus/file-store, which joins the id onto its folder as a path.
 */
const UPLOAD_ID = /^([1-9][0-9]{0,15})-[0-9a-f]{32}$/;
/** How @tus/server reads an id from a request URL: its last `/` piece, query string included. */
const TUS_LAST_PIECE = /([^/]+)\/?$/;

export function newUploadId(userId: number): string {
  return `${userId}-${randomHex(16)}`;
}

export function isUploadId(id: string): boolean {
  return UPLOAD_ID.test(id);
}

/** In the relay's form and created by this member (the owner is the id's prefix, compared whole). */
export function isOwnUploadId(id: string, userId: number): boolean {
  return UPLOAD_ID.exec(id)?.[1] === String(userId);
}

/**
 * The id @tus/server would take from this request URL (URL-decoded, as it does), or null when it
 * would take none or fail to decode it. A request whose URL reads as another id than the one the
 * route authorized is refused: a query string like `?x=/../../svc.sqlite` or `?x=/<someone's id>`
 * must never choose the file.
 */
export function tusIdOf(url: string): string | null {
  const piece = TUS_LAST_PIECE.exec(url)?.[1];
  if (piece === undefined) return null;
  try {
    return decodeURIComponent(piece);
  } catch {
    return null;
  }
}
