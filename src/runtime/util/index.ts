// Barrel for src/runtime/util (see contracts.ts for how the parts meet).
export {};
