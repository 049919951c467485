/**
 * Data source for the TypeORM CLI (`npx typeorm -d ormconfig.ts migration:run|revert|show`).
 * It reads the same configuration as the relay (svc.config.json + SVC_* variables).
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/config.loader';
import { dataSourceOptions } from './src/database/data-source-options';

export default new DataSource({
  ...dataSourceOptions(loadConfig()),
  entities: [join(__dirname, 'src', '**', '*.entity.{ts,js}')],
});
