// kubeforge/runtime (issue 4).
export {};
