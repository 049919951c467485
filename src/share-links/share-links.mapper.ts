import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../common/time';
import type { ShareLinkEntity } from './share-link.entity';

/**
 * A share link (docs/builds.md "Share links"). The token is stored only as its hash, so `url` and
 * `path` are known only in the answer that created the link; the list gives them as null.
 */
export class ShareLink {
  @ApiProperty()
  id: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://relay.example.com/install/0f3a…',
    description: "`<public url>/install/<token>`; null when the relay knows no public URL, and in the list (the token is not kept)",
  })
  url: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '/install/0f3a…',
    description: 'the install page on this relay, to prefix with an address a phone can open; null in the list',
  })
  path: string | null;
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

export function toShareLink(link: ShareLinkEntity, created?: { url: string | null; path: string }): ShareLink {
  return {
    id: link.id,
    url: created?.url ?? null,
    path: created?.path ?? null,
    expires_at: isoWithMillis(link.expiresAt),
    created_at: isoWithMillis(link.createdAt),
    created_by: link.createdByName,
    downloads: link.downloads,
    revoked: link.revokedAt !== null,
  };
}
