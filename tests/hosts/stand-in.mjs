// stand-in.mjs: a local stand-in for a host's model API, for the hosts
// suite (hosts.test.mjs).  It speaks just enough of two APIs for a host
// CLI to run one scripted turn:
//
//   POST /v1/messages    the Anthropic Messages API (Claude Code), streamed
//                        as server-sent events when the request says
//                        "stream": true, else one JSON message
//   POST /v1/responses   the OpenAI Responses API (Codex CLI), streamed
//
// The "model" asks for the scripted tool calls one after another: the
// next call is the one after as many as the request already holds
// results for, and when the script is done it answers "done".  A call
// names a tool by its MCP name (read_text_file); the tool the host
// offers for it is found in the request's tool list, whatever prefix or
// namespace the host gives it.  A call's arguments may be a function of
// the results the host sent back for the calls before it (as it sent
// them), as a model reads a job id from one result to use it in the
// next; when that function throws, the model has not found what it
// needed, and the call is recorded as missing with the reason.  A step
// may be asked for again while a function of the results says so, as a
// model reads a job's output page by page until its end.  Every tool result the host sends back is
// recorded as it came, by call id; so is every request, and any request
// for a path the stand-in does not serve.
//
// Also here: a trap for traffic meant elsewhere, an HTTP proxy on
// loopback that refuses everything and records what it was asked for.
// The hosts are pointed at it through HTTPS_PROXY and friends (with the
// stand-in exempted by NO_PROXY), so a request to any real service is
// caught, not sent.
import http from 'node:http';

/* Reads a request body as text. */
function body(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

/* Writes one server-sent event. */
function event(res, type, data) {
	res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

/* Finds the tool the host offers for MCP tool |name| among |offered|
 * ([{namespace, name}]): the same name, or one ending in "__" + name. */
function offeredTool(offered, name) {
	return offered.find((t) => t.name === name)
	    ?? offered.find((t) => t.name.endsWith(`__${name}`));
}

/* The most times one step of a script is asked for (see nextCall()). */
const AGAIN_MAX = 64;

/* The results the host sent back so far, by step of the script: the
 * latest of each (undefined for a step not yet asked for). */
function byStep(st) {
	const prev = st.script.map(() => undefined);
	for (const c of st.calls)
		prev[c.step] = st.results.get(c.id) ?? prev[c.step];
	return prev;
}

/*
 * The arguments of |step|: its args, or what its args function makes of
 * the results the host sent back so far (byStep()).  Returns null, with
 * the reason in st.missing, when the function throws.
 */
function argsOf(st, step) {
	if (typeof step.args !== 'function')
		return step.args;
	try {
		return step.args(byStep(st));
	} catch (e) {
		st.missing.push(`${step.tool}: ${e.message}`);
		return null;
	}
}

/*
 * The call to ask for once the host has sent back |results| results,
 * among the tools |offered| ([{namespace, name}]): {n, step, tool, input,
 * repeated (asked for before)}, or null when the script is done (or
 * stuck: st.missing says why).  The next step is the one after the last
 * call's, or that one again while its again() says so of the results so
 * far (a model reading a job's output until its end).
 */
function nextCall(st, offered, results) {
	// A request sent again gets the call it got before.
	if (st.calls.length > results) {
		const c = st.calls[results];
		return { n: results, step: c.step, tool: c.offered, input: c.input, repeated: true };
	}
	let k = 0;
	if (results > 0) {
		const last = st.calls[results - 1];
		k = last.step + 1;
		const step = st.script[last.step];
		if (step.again && st.calls.filter((c) => c.step === last.step).length < AGAIN_MAX) {
			try {
				if (step.again(byStep(st)))
					k = last.step;
			} catch (e) {
				st.missing.push(`${step.tool} again: ${e.message}`);
				return null;
			}
		}
	}
	const step = st.script[k];
	if (!step)
		return null;
	const tool = offeredTool(offered, step.tool);
	if (!tool) {
		if (offered.length > 0)
			st.missing.push(step.tool);
		return null;
	}
	const input = argsOf(st, step);
	return input ? { n: results, step: k, tool, input } : null;
}

/* --- Anthropic Messages API --- */

function anthropicTurn(st, req) {
	const offered = (req.tools ?? []).filter((t) => typeof t.name === 'string')
	    .map((t) => ({ namespace: null, name: t.name }));
	let results = 0;
	for (const m of req.messages ?? []) {
		for (const c of Array.isArray(m.content) ? m.content : []) {
			if (c.type !== 'tool_result')
				continue;
			results++;
			if (!st.results.has(c.tool_use_id))
				st.results.set(c.tool_use_id, c);
		}
	}
	const next = nextCall(st, offered, results);
	if (next) {
		const id = `toolu_${String(next.n).padStart(4, '0')}`;
		if (!next.repeated)
			st.calls.push({ id, step: next.step, tool: st.script[next.step].tool, as: next.tool.name,
			    offered: next.tool, input: next.input });
		return { type: 'tool_use', id, name: next.tool.name, input: next.input };
	}
	return { type: 'text', text: 'done' };
}

function anthropic(st, req, res) {
	const block = anthropicTurn(st, req);
	const msg = {
		id: `msg_${++st.seq}`, type: 'message', role: 'assistant',
		model: req.model ?? 'stand-in', content: [block],
		stop_reason: block.type === 'tool_use' ? 'tool_use' : 'end_turn',
		stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
	};
	if (!req.stream) {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify(msg));
		return;
	}
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	event(res, 'message_start', { message: { ...msg, content: [], stop_reason: null } });
	if (block.type === 'tool_use') {
		event(res, 'content_block_start', { index: 0, content_block: { ...block, input: {} } });
		event(res, 'content_block_delta', { index: 0,
		    delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
	} else {
		event(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
		event(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: block.text } });
	}
	event(res, 'content_block_stop', { index: 0 });
	event(res, 'message_delta', { delta: { stop_reason: msg.stop_reason, stop_sequence: null },
	    usage: { output_tokens: 1 } });
	event(res, 'message_stop', {});
	res.end();
}

/* --- OpenAI Responses API --- */

function openaiTurn(st, req) {
	const offered = [];
	for (const t of req.tools ?? []) {
		if (t.type === 'namespace' && Array.isArray(t.tools)) {
			for (const u of t.tools)
				offered.push({ namespace: t.name, name: u.name });
		} else if (typeof t.name === 'string')
			offered.push({ namespace: null, name: t.name });
	}
	let results = 0;
	for (const it of Array.isArray(req.input) ? req.input : []) {
		if (it.type !== 'function_call_output')
			continue;
		results++;
		if (!st.results.has(it.call_id))
			st.results.set(it.call_id, it);
	}
	const next = nextCall(st, offered, results);
	if (next) {
		const { tool } = next;
		const id = `call_${String(next.n).padStart(4, '0')}`;
		if (!next.repeated)
			st.calls.push({ id, step: next.step, tool: st.script[next.step].tool,
			    as: tool.namespace ? `${tool.namespace}/${tool.name}` : tool.name, offered: tool,
			    input: next.input });
		return { type: 'function_call', id: `fc_${next.n}`, call_id: id, name: tool.name,
		    ...(tool.namespace ? { namespace: tool.namespace } : {}),
		    arguments: JSON.stringify(next.input), status: 'completed' };
	}
	return { type: 'message', id: `msg_${results}`, role: 'assistant', status: 'completed',
	    content: [{ type: 'output_text', text: 'done', annotations: [] }] };
}

function openai(st, req, res) {
	const item = openaiTurn(st, req);
	const id = `resp_${++st.seq}`;
	const response = { id, object: 'response', status: 'in_progress', model: req.model ?? 'stand-in',
	    output: [] };
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	event(res, 'response.created', { response });
	event(res, 'response.output_item.added', { output_index: 0, item });
	event(res, 'response.output_item.done', { output_index: 0, item });
	event(res, 'response.completed', { response: { ...response, status: 'completed', output: [item],
	    usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1,
	    output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 } } });
	res.end();
}

/*
 * Starts the stand-in on 127.0.0.1 with |script|, a list of {tool, args,
 * again}: args an object, or a function of the results so far, the
 * latest of each step by its index (byStep()); again, if there, a function
 * of them that says to ask for the same step once more (nextCall()).
 * Returns {url, requests, calls, results, missing, unexpected, close()}:
 *   requests    every request: {method, path, body (parsed, or text)}
 *   calls       the tool calls asked for: {id, step (its index in the
 *               script), tool, as (the host's name), offered, input}
 *   results     Map of call id to the tool result the host sent back
 *   missing     scripted tools the host did not offer, and calls whose
 *               args function found nothing to go on (with its reason)
 *   unexpected  requests for paths the stand-in does not serve
 */
export async function startStandIn(script) {
	const st = { script, seq: 0, requests: [], calls: [], results: new Map(), missing: [],
	    unexpected: [] };
	const server = http.createServer(async (req, res) => {
		const text = await body(req);
		let parsed = text;
		try {
			parsed = text.length > 0 ? JSON.parse(text) : null;
		} catch {
			// Kept as text.
		}
		const path = req.url.split('?')[0];
		st.requests.push({ method: req.method, path, body: parsed });
		if (req.method === 'POST' && path === '/v1/messages' && parsed !== null)
			return anthropic(st, parsed, res);
		if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
			res.writeHead(200, { 'content-type': 'application/json' });
			return res.end('{"input_tokens":1}');
		}
		if (req.method === 'POST' && path === '/v1/responses' && parsed !== null)
			return openai(st, parsed, res);
		st.unexpected.push(`${req.method} ${req.url}`);
		res.writeHead(404, { 'content-type': 'application/json' });
		return res.end('{"error":{"type":"not_found","message":"not served by the stand-in"}}');
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		requests: st.requests, calls: st.calls, results: st.results, missing: st.missing,
		unexpected: st.unexpected,
		close: () => new Promise((resolve) => {
			server.closeAllConnections?.();
			server.close(() => resolve());
		}),
	};
}

/*
 * Starts the trap: an HTTP proxy on 127.0.0.1 that refuses every request
 * and CONNECT and records its target.  Returns {url, caught, close()}.
 */
export async function startTrap() {
	const caught = [];
	const server = http.createServer((req, res) => {
		caught.push(`${req.method} ${req.url}`);
		res.writeHead(403);
		res.end();
	});
	server.on('connect', (req, socket) => {
		caught.push(`CONNECT ${req.url}`);
		socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		caught,
		close: () => new Promise((resolve) => {
			server.closeAllConnections?.();
			server.close(() => resolve());
		}),
	};
}
