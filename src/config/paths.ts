// Where the project's files live, relative to its root.
export const CONFIG_PATH = ".roundtable/config.yaml";
