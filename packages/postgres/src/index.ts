export { type PostgresStore, type PostgresStoreOptions, postgresStore } from './postgres-store.ts';
