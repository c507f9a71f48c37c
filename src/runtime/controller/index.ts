// Barrel for src/runtime/controller (see contracts.ts for how the parts meet).
export {};
