// Barrel for src/runtime/manager (see contracts.ts for how the parts meet).
export {};
