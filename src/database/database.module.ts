import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RelayConfig } from '../config/relay-config';
import { dataSourceOptions } from './data-source-options';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [RelayConfig],
      useFactory: (config: RelayConfig) => ({ ...dataSourceOptions(config), autoLoadEntities: true }),
    }),
  ],
})
export class DatabaseModule {}
