// Where the project's files live, relative to its root (all of them in src/layout.ts).
import { LAYOUT } from "../layout.ts";

export const CONFIG_PATH: string = LAYOUT.config;
