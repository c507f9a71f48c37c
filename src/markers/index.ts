// kubeforge/markers: the decorators (issue 3). Imports nothing: users' operators load it.
export {};
