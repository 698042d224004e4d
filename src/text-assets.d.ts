// `import x from "…" with { type: "text" }`: the dashboard's files (src/dashboard/web/), embedded as
// text in the package and under `bun build --compile`. bun-types already types `*.html` (as an
// HTML bundle; src/transports/dashboard/assets.ts casts it); a new .js file there needs a line here.
declare module "*.css" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/api.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/app.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/decisions.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/diff.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/dom.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/ledger.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/notes.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/overview.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/parts.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/proposal.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/views.js" {
	const text: string;
	export default text;
}
declare module "*/dashboard/web/work.js" {
	const text: string;
	export default text;
}
