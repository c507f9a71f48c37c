// Barrel for src/runtime/client (see contracts.ts for how the parts meet).
export {};
