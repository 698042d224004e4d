// arktype as every Roundtable module imports it (test/architecture.test.ts refuses "arktype"
// anywhere else): through here, its mode is set before arktype builds its first schema, whichever
// command is the first to need one, and a command that needs none loads none of it.
import "./arktype-mode.ts";

export { type ArkError, type Type, type } from "arktype";
