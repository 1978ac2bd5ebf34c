import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A credit cost under one pricing version. A price change is a new row with a higher version;
 * old rows stay, so a job's charge can always be explained by the version it recorded.
 */
@Entity({ name: 'prices' })
export class Price {
  /** `<tool_id>.default`, or `product_photo.<operation>` for product photo operations. */
  @PrimaryColumn({ name: 'cost_key', type: 'text' })
  costKey!: string;

  @PrimaryColumn({ name: 'pricing_version', type: 'integer' })
  pricingVersion!: number;

  @Column({ type: 'integer' })
  credits!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
