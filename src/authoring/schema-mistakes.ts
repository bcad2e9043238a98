/**
 * JSON Schemas that cannot be what their author meant: the shorthand `{ field: "string" }`, a `type` that is no
 * JSON Schema type, and `required` naming a property `properties` does not define. Plain data in, findings out.
 */

export interface SchemaMistake {
	message: string;
	fix: string;
}

const TYPES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
/** The keywords a schema object is recognised by; an object with none of them at its root is not a schema. */
const KEYWORDS: ReadonlySet<string> = new Set([
	"type",
	"properties",
	"required",
	"items",
	"prefixItems",
	"enum",
	"const",
	"anyOf",
	"oneOf",
	"allOf",
	"not",
	"$ref",
	"$defs",
	"definitions",
	"$schema",
	"$id",
	"additionalProperties",
	"patternProperties",
	"description",
	"title",
	"default",
	"examples",
	"format",
	"pattern",
	"minLength",
	"maxLength",
	"minimum",
	"maximum",
	"minItems",
	"maxItems",
	"uniqueItems",
	"if",
	"then",
	"else",
	"nullable",
]);
const MAX_FINDINGS = 5;

/** The mistakes in `schema` (an `agent()` option or `meta.args`), named by their path from `name`. */
export function schemaMistakes(schema: unknown, name: string): SchemaMistake[] {
	const found: SchemaMistake[] = [];
	if (!isObject(schema)) return found;
	if (isShorthand(schema)) {
		found.push({
			message: `\`${name}\` is written as a shorthand (\`{ field: "string" }\`), but it must be a JSON Schema`,
			fix: `Write \`${fullForm(schema)}\``,
		});
		return found;
	}
	walk(schema, name, found);
	return found;
}

function walk(schema: Record<string, unknown>, path: string, found: SchemaMistake[]): void {
	if (found.length >= MAX_FINDINGS) return;
	const { type, properties, required, items } = schema;
	for (const each of Array.isArray(type) ? type : [type]) {
		if (typeof each === "string" && !TYPES.has(each)) {
			found.push({
				message: `\`${path}.type\` is \`"${each}"\`, which is not a JSON Schema type`,
				fix: `Use one of ${[...TYPES].map((t) => `"${t}"`).join(", ")}`,
			});
		}
	}
	if (isObject(properties)) {
		if (Array.isArray(required)) {
			for (const field of required) {
				if (typeof field === "string" && !Object.hasOwn(properties, field)) {
					found.push({
						message: `\`${path}.required\` names \`${field}\`, which \`${path}.properties\` does not define`,
						fix: `Add \`${field}: { type: … }\` to \`properties\`, or take it out of \`required\``,
					});
				}
			}
		}
		for (const [key, value] of Object.entries(properties)) {
			const child = `${path}.properties.${key}`;
			if (typeof value === "string" && TYPES.has(value)) {
				found.push({
					message: `\`${child}\` is the string "${value}", but each property must be a schema`,
					fix: `Write \`${key}: { type: "${value}" }\``,
				});
			} else if (isObject(value)) walk(value, child, found);
		}
	}
	if (isObject(items)) walk(items, `${path}.items`, found);
}

function isShorthand(schema: Record<string, unknown>): boolean {
	const keys = Object.keys(schema);
	if (keys.length === 0 || keys.some((key) => KEYWORDS.has(key))) return false;
	return Object.values(schema).some(
		(value) => (typeof value === "string" && TYPES.has(value)) || isObject(value) || Array.isArray(value),
	);
}

/** The JSON Schema a shorthand most likely meant, for the first few fields. */
function fullForm(schema: Record<string, unknown>): string {
	const fields = Object.entries(schema).slice(0, 3);
	const property = ([key, value]: [string, unknown]) => {
		const type = typeof value === "string" && TYPES.has(value) ? value : Array.isArray(value) ? "array" : "object";
		return `${key}: { type: "${type}" }`;
	};
	const more = Object.keys(schema).length > fields.length ? ", …" : "";
	const names = fields.map(([key]) => `"${key}"`).join(", ");
	return `{ type: "object", properties: { ${fields.map(property).join(", ")}${more} }, required: [${names}${more}] }`;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
