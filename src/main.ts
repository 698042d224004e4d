#!/usr/bin/env bun
// First, before anything builds a schema.
import "./vocabulary/arktype-mode.ts";
import { main } from "./cli/index.ts";

process.exitCode = await main(process.argv.slice(2));
