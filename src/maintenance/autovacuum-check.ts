import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DatabaseServerRepository } from '../database/database-server.repository';

/**
 * Says so at start when PostgreSQL's autovacuum is off. The relay's list and count statements are
 * planned from the server's statistics; with autovacuum off nothing refreshes them, and a database
 * that grows from empty is read by sequential scans ever longer (a 10-minute soak on such a server
 * fell from 530 to 155 answers/s as its builds table grew: docs/database.md#autovacuum). The relay
 * does not analyse tables itself: turning autovacuum off is an operator's choice, and whoever makes it
 * runs VACUUM ANALYZE on their own schedule. A warning, not a refusal: the relay still answers right.
 * The server process only: the CLI's commands open the same database and keep their stderr for errors.
 */
@Injectable()
export class AutovacuumCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('Database');

  constructor(private readonly databaseServer: DatabaseServerRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    if ((await this.databaseServer.autovacuumOn()) === false) {
      this.logger.warn(
        "PostgreSQL's autovacuum is off on this server: the relay's query plans go stale as tables grow. " +
          'Turn it on, or run VACUUM ANALYZE on the relay\'s database regularly (docs/database.md#autovacuum)',
      );
    }
  }
}
