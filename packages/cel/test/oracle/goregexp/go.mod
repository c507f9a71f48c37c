// Go's regexp.Compile as an oracle for kubeforge's port of its errors (packages/cel/src/plan.ts
// goRegexpError). Test infrastructure only: kubeforge itself never needs Go.
module kubeforge.invalid/goregexp

go 1.22
