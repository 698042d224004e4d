// The sessions family's tools (see FAMILIES in ./types.ts).

export const sessionTools = [] as const;
