import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RelayConfig } from '../config/relay-config';
import { dataSourceOptions } from './data-source-options';
import { TransactionRunner } from './transaction-runner';

/** The data source, and the TransactionRunner every module's multi-statement writes go through. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [RelayConfig],
      useFactory: (config: RelayConfig) => ({ ...dataSourceOptions(config), autoLoadEntities: true }),
    }),
  ],
  providers: [TransactionRunner],
  exports: [TransactionRunner],
})
export class DatabaseModule {}
