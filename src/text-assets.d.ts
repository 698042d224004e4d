// `import x from "…" with { type: "text" }`: the dashboard's files (src/dashboard/web/), embedded as
// text in the package and under `bun build --compile`. bun-types already types `*.html` (as an
// HTML bundle; src/dashboard/server/assets.ts casts it); a new .js file there needs a line here.
declare module "*.css" {
	const text: string;
	export default text;
}
declare module "*/web/api.js" {
	const text: string;
	export default text;
}
declare module "*/web/app.js" {
	const text: string;
	export default text;
}
declare module "*/web/decisions.js" {
	const text: string;
	export default text;
}
declare module "*/web/diff.js" {
	const text: string;
	export default text;
}
declare module "*/web/dom.js" {
	const text: string;
	export default text;
}
declare module "*/web/ledger.js" {
	const text: string;
	export default text;
}
declare module "*/web/notes.js" {
	const text: string;
	export default text;
}
declare module "*/web/overview.js" {
	const text: string;
	export default text;
}
declare module "*/web/parts.js" {
	const text: string;
	export default text;
}
declare module "*/web/proposal.js" {
	const text: string;
	export default text;
}
declare module "*/web/sessions.js" {
	const text: string;
	export default text;
}
declare module "*/web/views.js" {
	const text: string;
	export default text;
}
declare module "*/web/work.js" {
	const text: string;
	export default text;
}
