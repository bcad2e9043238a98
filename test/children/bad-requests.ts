/** Provider error texts of bad requests, shared by the stop and the limit classifiers' tables. */

/**
 * Bad requests that look like a stop or a wait to a reader of words: the request's own names (a tool called
 * `get_billing_info`), paths into it (`messages.401`) and numbers echo back in the provider's answer. Neither a stop
 * nor a wait: the child fails at once.
 */
export const BAD_REQUESTS: [string, string][] = [
	[
		"OpenAI invalid tool schema naming billing (the SDK's message)",
		"400 Invalid schema for function 'get_billing_info': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'account'.",
	],
	[
		"OpenAI invalid tool schema naming billing (pi-ai's status and body)",
		`400: {"message":"Invalid schema for function 'get_billing_info': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'account'.","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_function_parameters"}`,
	],
	[
		"Anthropic invalid tool schema naming a credit balance and a quota",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"tools.3.custom.description: must be at most 1024 characters, got \'Shows your credit balance once the quota exceeded the plan\' (1100)"}}',
	],
	[
		"Anthropic bad request with 401 in a path",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.401.content.0.tool_result: content cannot be empty"}}',
	],
	[
		"Anthropic bad request with 402, 429 and 503 in paths",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.402.content.1: unexpected tool_use_id found in tool_result blocks: toolu_429; messages.503 must alternate"}}',
	],
	[
		"OpenAI bad request echoing a rate limit tool name",
		`OpenAI API error (400): {"message":"Invalid 'input[401].name': 'rate_limit_exceeded_handler' is not a known function.","type":"invalid_request_error","param":"input[401].name","code":"invalid_value"}`,
	],
];
