import { Injectable } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';

/** Placeholder until the LDAP step lands (docs/identity.md). */
@Injectable()
export class LdapDirectoryService {
  constructor(private readonly config: RelayConfig) {}

  get enabled(): boolean {
    return !!this.config.sso.ldap;
  }
}
