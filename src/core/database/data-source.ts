import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/load-config';
import { dataSourceOptions } from './data-source-options';

/** Used by the TypeORM command line (`npm run migration:generate`) only. */
const config = loadConfig(process.env);
if (!config.DATABASE_URL) throw new Error('DATABASE_URL must be set to generate migrations');

export default new DataSource(dataSourceOptions({ url: config.DATABASE_URL, poolSize: 1 }));
