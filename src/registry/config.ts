// The config family's tools (see FAMILIES in ./types.ts).

export const configTools = [] as const;
