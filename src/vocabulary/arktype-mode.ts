// arktype's mode in every Roundtable process, set before arktype builds a schema: ./arktype.ts
// imports this before arktype itself. Jitless, arktype walks a schema to check a value instead of
// compiling each schema into a function of its own. The compiled functions of its built-in keywords
// alone held ~9 MB in every process, and each tool's schema added more (~23 MB for all of them) for
// as long as the process ran; checking a call's arguments takes a few µs longer, little beside the
// call's transport and transaction.
import { configure } from "arktype/config";

configure({ jitless: true });
