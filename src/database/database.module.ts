import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RelayConfig } from '../config/relay-config';
import { installPlatform } from '../platform/install';
import { DatabaseServerRepository } from './database-server.repository';
import { dataSourceOptions } from './data-source-options';
import { SqlExecutor } from './sql-executor';
import { TransactionRunner } from './transaction-runner';

/** The data source, the SqlExecutor every statement runs on, the TransactionRunner every multi-statement write goes through, and the server's own questions. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [RelayConfig],
      useFactory: (config: RelayConfig) => ({ ...dataSourceOptions(config), autoLoadEntities: true }),
      // The engine room's 'data-source' pieces, before initialize() runs the migrations (also for the CLI's contexts).
      dataSourceFactory: async (options) => installPlatform('data-source', new DataSource(options!)),
    }),
  ],
  providers: [SqlExecutor, TransactionRunner, DatabaseServerRepository],
  exports: [SqlExecutor, TransactionRunner, DatabaseServerRepository],
})
export class DatabaseModule {}
