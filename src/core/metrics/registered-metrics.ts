import {
  Counter,
  Gauge,
  Histogram,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  type Registry,
} from 'prom-client';

/** A metric's definition without where it is registered. */
type Unregistered<C> = Omit<C, 'registers'>;

/** Makes metrics registered in `registry`, the one `/metrics` serves: where each metrics class defines its series. */
export function metricsOf(registry: Registry) {
  const registers = [registry];
  return {
    counter: <L extends string = string>(definition: Unregistered<CounterConfiguration<L>>) =>
      new Counter<L>({ ...definition, registers }),
    histogram: <L extends string = string>(definition: Unregistered<HistogramConfiguration<L>>) =>
      new Histogram<L>({ ...definition, registers }),
    gauge: <L extends string = string>(definition: Unregistered<GaugeConfiguration<L>>) =>
      new Gauge<L>({ ...definition, registers }),
  };
}
