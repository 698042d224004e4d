// `import x from "…wasm" with { type: "file" }` gives the file's path (embedded under --compile).
declare module "*.wasm" {
	const path: string;
	export default path;
}
