// Points config/manager/kustomization.yaml at an image (`make set-image IMG=repo/name:tag`),
// as `kustomize edit set image controller=IMG` does, without needing the kustomize binary.
import { readFileSync, writeFileSync } from 'node:fs';

const image = process.argv[2];
if (!image) {
  console.error('usage: node hack/set-image.mjs <image>[:<tag>]');
  process.exit(2);
}
const at = image.lastIndexOf(':');
const hasTag = at > image.lastIndexOf('/');
const name = hasTag ? image.slice(0, at) : image;
const tag = hasTag ? image.slice(at + 1) : 'latest';
const file = 'config/manager/kustomization.yaml';
const text = readFileSync(file, 'utf8');
if (!/^\s*newName: .*$/m.test(text) || !/^\s*newTag: .*$/m.test(text)) {
  console.error(`${file}: no images entry with newName/newTag for "controller"`);
  process.exit(1);
}
const updated = text.replace(/^(\s*newName: ).*$/m, `$1${name}`).replace(/^(\s*newTag: ).*$/m, `$1${tag}`);
if (updated !== text) writeFileSync(file, updated);
console.log(`${file}: image controller=${name}:${tag}`);
