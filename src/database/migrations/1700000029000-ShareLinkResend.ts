import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Share links a team can re-send (issue 40, docs/builds.md "Share links"): the token sealed with
 * SVC_SECRETS_KEY (AES-GCM, common/crypto/secret-box.ts; NULL for links made before this migration
 * or on a relay without the key, which stay "shown once"), an optional password kept as a bcrypt
 * hash, and an optional download limit. The lookup stays by `token_hash`.
 */
export class ShareLinkResend1700000029000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('build_share_links', [
      new TableColumn({ name: 'token_sealed', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({ name: 'password_hash', type: 'varchar', length: '100', isNullable: true }),
      new TableColumn({ name: 'download_limit', type: 'integer', isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of ['download_limit', 'password_hash', 'token_sealed']) await q.dropColumn('build_share_links', name);
  }
}
