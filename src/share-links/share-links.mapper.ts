import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../common/time';
import type { ShareLinkEntity } from './share-link.entity';

/**
 * A share link (docs/builds.md "Share links"). `url` and `path` are in the answer that created it
 * and, for writers, in the list while the link is live and the relay keeps its token sealed
 * (`resendable`); otherwise null.
 */
export class ShareLink {
  @ApiProperty()
  id: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://relay.example.com/install/0f3a…',
    description:
      '`<public url>/install/<token>`; null when the relay knows no public URL, and in the list for Viewers, for ended links and for links not resendable',
  })
  url: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '/install/0f3a…',
    description: 'the install page on this relay, to prefix with an address a phone can open; null in the list when url would be',
  })
  path: string | null;
  @ApiProperty({
    description:
      'true when the relay keeps the token sealed with SVC_SECRETS_KEY, so writers can copy the link again from the list; false for links made before that or on a relay without the key (shown once)',
  })
  resendable: boolean;
  @ApiProperty({ description: 'whether the install page asks for a password before the download' })
  password: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'downloads allowed; null for no limit' })
  download_limit: number | null;
  @ApiProperty({ format: 'date-time' })
  expires_at: string;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ description: 'display name of the member who created it, or the part of the e-mail before @' })
  created_by: string;
  @ApiProperty({ description: 'downloads started from the first byte (a resumed range is not counted again)' })
  downloads: number;
  @ApiProperty()
  revoked: boolean;
}

export function toShareLink(link: ShareLinkEntity, shown?: { url: string | null; path: string }): ShareLink {
  return {
    id: link.id,
    url: shown?.url ?? null,
    path: shown?.path ?? null,
    resendable: link.tokenSealed !== null,
    password: link.passwordHash !== null,
    download_limit: link.downloadLimit,
    expires_at: isoWithMillis(link.expiresAt),
    created_at: isoWithMillis(link.createdAt),
    created_by: link.createdByName,
    downloads: link.downloads,
    revoked: link.revokedAt !== null,
  };
}
