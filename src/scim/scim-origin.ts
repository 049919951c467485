import type { Request } from 'express';
import type { PublicUrlService } from '../relay/public-url.service';

/** The relay's URL for `meta.location`: its canonical origin, else the origin the request came to. */
export function scimBaseUrl(publicUrl: PublicUrlService, req: Request): string {
  return publicUrl.originFor(`${req.protocol}://${req.get('host')}`);
}
