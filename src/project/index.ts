/** The PROJECT file (Kubebuilder's v3 schema) and resource naming. */
export * from './config.js';
export * from './naming.js';
export * from './gvk.js';
export * from './file.js';
export * from './plugins.js';
