import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis, nullableIso } from '../common/time';
import type { LatestLink, Tester } from './testers.repository';

export class TesterItem {
  @ApiProperty()
  id: number;
  @ApiProperty()
  email: string;
  @ApiProperty({ type: String, nullable: true })
  name: string | null;
  @ApiProperty({ type: [String], nullable: true, description: 'null: every build' })
  branches: string[] | null;
  @ApiProperty()
  only_done: boolean;
  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'when they unsubscribed with the link in a notice' })
  unsubscribed_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: "Admins only (null for others): the mail server's final refusal of their newest notice (a bounce)" })
  last_refusal: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'Admins only' })
  refused_at: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class LatestLinkItem {
  @ApiProperty()
  id: number;
  @ApiProperty({ type: String, nullable: true, description: 'null: the newest build of any branch' })
  branch: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  revoked_at: string | null;
}

export class CreatedLatestLink extends LatestLinkItem {
  @ApiProperty({ type: String, nullable: true, description: '`<public url>/install/latest/<token>`, shown once; null when the relay knows no public URL' })
  url: string | null;
  @ApiProperty({ description: '`/install/latest/<token>`, shown once' })
  path: string;
}

export function toTesterItem(t: Tester, admin: boolean): TesterItem {
  return {
    id: t.id,
    email: t.email,
    name: t.name,
    branches: t.branches,
    only_done: t.onlyDone,
    unsubscribed_at: t.unsubscribedAt === null ? null : isoWithMillis(new Date(t.unsubscribedAt)),
    last_refusal: admin ? t.lastRefusal : null,
    refused_at: admin && t.refusedAt !== null ? isoWithMillis(new Date(t.refusedAt)) : null,
    created_at: isoWithMillis(new Date(t.createdAt)),
  };
}

export function toLatestLinkItem(l: LatestLink): LatestLinkItem {
  return { id: l.id, branch: l.branch, created_at: isoWithMillis(new Date(l.createdAt)), revoked_at: nullableIso(l.revokedAt === null ? null : new Date(l.revokedAt)) };
}
