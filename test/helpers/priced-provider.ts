/**
 * pi-ai's faux provider takes a model's price but never applies it. This wraps a provider's streams to price each
 * final message with pi-ai's own `calculateCost`, as real providers do when their stream ends, so the costs tests
 * see are pi-ai's figures. A model whose id ends in `-billed` also says its total is the provider's bill (as
 * OpenRouter's reported cost does).
 */
import {
	type Api,
	type AssistantMessageEventStream,
	calculateCost,
	createAssistantMessageEventStream,
	type Model,
	type Provider,
} from "@earendil-works/pi-ai";

/** Per million tokens, as a catalog gives it: the price tests' priced faux models have. */
export const FAUX_PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

type StreamFn = (model: Model<Api>, ...rest: never[]) => AssistantMessageEventStream;

/** `provider` with priced `stream` and `streamSimple`. */
export function pricedProvider<P extends Pick<Provider, "stream" | "streamSimple">>(provider: P): P {
	return {
		...provider,
		stream: priced(provider.stream.bind(provider) as StreamFn),
		streamSimple: priced(provider.streamSimple.bind(provider) as StreamFn),
	};
}

function priced<F extends StreamFn>(inner: F): F {
	return ((model: Model<Api>, ...rest: never[]) => {
		const source = inner(model, ...rest);
		const out = createAssistantMessageEventStream();
		void (async () => {
			for await (const event of source) {
				const final = event.type === "done" ? event.message : event.type === "error" ? event.error : undefined;
				if (final) {
					// Faux replies can share one usage object: price a copy.
					final.usage = structuredClone(final.usage);
					calculateCost(model, final.usage);
					if (model.id.endsWith("-billed")) final.usage.cost.totalFromProvider = true;
				}
				out.push(event);
			}
			out.end();
		})();
		return out;
	}) as F;
}
