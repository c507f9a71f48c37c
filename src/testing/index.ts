// kubeforge/testing (issue 4).
export {};
