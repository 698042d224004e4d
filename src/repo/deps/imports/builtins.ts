// Node's built-in modules reachable without the `node:` prefix (`require("module").builtinModules`
// of Node 20/22), written out so the answer does not depend on the runtime this server runs on.
// Newer modules (node:test, node:sqlite, node:sea) exist only with the prefix, which is handled apart.
const NAMES = `
_http_agent _http_client _http_common _http_incoming _http_outgoing _http_server _stream_duplex
_stream_passthrough _stream_readable _stream_transform _stream_wrap _stream_writable _tls_common
_tls_wrap assert assert/strict async_hooks buffer child_process cluster console constants crypto
dgram diagnostics_channel dns dns/promises domain events fs fs/promises http http2 https inspector
inspector/promises module net os path path/posix path/win32 perf_hooks process punycode querystring
readline readline/promises repl stream stream/consumers stream/promises stream/web string_decoder
sys timers timers/promises tls trace_events tty url util util/types v8 vm wasi worker_threads zlib
`;

export const NODE_BUILTINS: ReadonlySet<string> = new Set(NAMES.split(/\s+/).filter((n) => n !== ""));

/** Crates every Rust program has without a Cargo dependency. */
export const RUST_BUILTIN_CRATES: ReadonlySet<string> = new Set([
	"std",
	"core",
	"alloc",
	"proc_macro",
	"test",
]);
