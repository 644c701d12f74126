import type { Metric, Registry } from 'prom-client';

type Labels = { method: string; route: string; status: string };

/** One series: requests counted, and the latency histogram of those that were timed (buckets not cumulative). */
interface Series {
	labels: Labels;
	requests: number;
	timed: number;
	sum: number;
	buckets: Float64Array;
}

/** A sample as prom-client's registry formats it (`sharedLabels` after `labels`, as its own histograms do). */
interface Sample {
	metricName?: string;
	labels: Record<string, string | number>;
	sharedLabels?: Labels;
	value: number;
}

/**
 * HTTP requests by method, route template and status, as the counter `<name>_requests_total` and the histogram
 * `<name>_request_duration_seconds`, in prom-client's exposition format. Each request costs a Map lookup and a few
 * additions; the samples are built only when scraped. prom-client's own `inc`/`observe` hash and validate the labels
 * and look buckets up by their decimal keys on every call, which took a tenth of Haven's throughput on a small GET.
 * The metrics are registered through `Registry#registerMetric`, the same door prom-client's own metrics use.
 */
export class HttpMetrics {
	readonly #bounds: readonly number[];
	readonly #series = new Map<string, Series>();

	constructor(registry: Registry, options: { prefix: string; buckets: readonly number[]; help: { requests: string; duration: string } }) {
		this.#bounds = [...options.buckets].sort((a, b) => a - b);
		const { prefix, help } = options;
		const register = (name: string, type: 'counter' | 'histogram', helpText: string, values: () => Sample[]) => {
			const metric = {
				name,
				help: helpText,
				type,
				aggregator: 'sum',
				getForPromString: async () => ({ name, help: helpText, type, aggregator: 'sum', values: values() }),
				get: async () => ({
					name,
					help: helpText,
					type,
					aggregator: 'sum',
					values: values().map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })),
				}),
				reset: () => this.#series.clear(),
			};
			registry.registerMetric(metric as unknown as Metric);
		};
		register(`${prefix}_requests_total`, 'counter', help.requests, () => this.#counterSamples());
		register(`${prefix}_request_duration_seconds`, 'histogram', help.duration, () =>
			this.#histogramSamples(`${prefix}_request_duration_seconds`),
		);
	}

	/** Counts a request; `seconds` also times it (leave it out for requests that were never served, e.g. unparsable). */
	record(method: string, route: string, status: string, seconds?: number): void {
		const key = `${method} ${route} ${status}`;
		let series = this.#series.get(key);
		if (series === undefined) {
			series = { labels: { method, route, status }, requests: 0, timed: 0, sum: 0, buckets: new Float64Array(this.#bounds.length) };
			this.#series.set(key, series);
		}
		series.requests++;
		if (seconds === undefined) return;
		series.timed++;
		series.sum += seconds;
		const bounds = this.#bounds;
		for (let i = 0; i < bounds.length; i++) {
			if (seconds <= bounds[i]!) {
				series.buckets[i]!++;
				break;
			}
		}
	}

	#counterSamples(): Sample[] {
		return [...this.#series.values()].map((series) => ({ labels: series.labels, value: series.requests }));
	}

	#histogramSamples(name: string): Sample[] {
		const samples: Sample[] = [];
		for (const { labels: sharedLabels, buckets, timed, sum } of this.#series.values()) {
			if (timed === 0) continue;
			let cumulative = 0;
			this.#bounds.forEach((le, i) => {
				cumulative += buckets[i]!;
				samples.push({ metricName: `${name}_bucket`, labels: { le }, sharedLabels, value: cumulative });
			});
			samples.push(
				{ metricName: `${name}_bucket`, labels: { le: '+Inf' }, sharedLabels, value: timed },
				{ metricName: `${name}_sum`, labels: {}, sharedLabels, value: sum },
				{ metricName: `${name}_count`, labels: {}, sharedLabels, value: timed },
			);
		}
		return samples;
	}
}
