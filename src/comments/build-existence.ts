import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * Whether a build exists. Comments only need this one fact about builds; it reads the `builds`
 * table directly because the builds module is developed on another branch. Once it lands, this
 * becomes a call to its exported service.
 */
@Injectable()
export class BuildExistence {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async exists(buildId: number): Promise<boolean> {
    const row = await this.dataSource
      .createQueryBuilder()
      .select('b.id', 'id')
      .from('builds', 'b')
      .where('b.id = :buildId', { buildId })
      .getRawOne();
    return !!row;
  }
}
