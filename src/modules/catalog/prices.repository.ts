import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface CurrentPrice {
  costKey: string;
  credits: number;
  pricingVersion: number;
}

/** Every statement on the prices table. */
@Injectable()
export class PricesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Each cost key at its highest pricing version. */
  async currentPrices(): Promise<Map<string, CurrentPrice>> {
    const rows: Array<{ cost_key: string; credits: number; pricing_version: number }> = await this.dataSource.query(
      `SELECT DISTINCT ON (cost_key) cost_key, credits, pricing_version
         FROM prices ORDER BY cost_key, pricing_version DESC`,
    );
    return new Map(
      rows.map((row) => [
        row.cost_key,
        { costKey: row.cost_key, credits: row.credits, pricingVersion: row.pricing_version },
      ]),
    );
  }
}
