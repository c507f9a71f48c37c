// Barrel for src/runtime/cache (see contracts.ts for how the parts meet).
export {};
