// The runs family's tools (see FAMILIES in ./types.ts).

export const runTools = [] as const;
