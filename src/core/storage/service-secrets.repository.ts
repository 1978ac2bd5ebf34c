import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Every statement on the service's own secrets (`service_secrets`). */
@Injectable()
export class ServiceSecretsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The secret named `name`, stored as `candidate` first if no instance has stored one yet.
   * ON CONFLICT makes instances starting together agree: the losers' inserts do nothing and all
   * read the winner's. Null if the row still cannot be read.
   */
  async storedOrCreated(name: string, candidate: string): Promise<string | null> {
    await this.dataSource.query(
      `INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
      [name, candidate],
    );
    const rows: Array<{ value: string }> = await this.dataSource.query(
      `SELECT value FROM service_secrets WHERE name = $1`,
      [name],
    );
    return rows.length === 1 ? rows[0].value : null;
  }
}
