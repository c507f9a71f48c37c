// Command celcorpus extracts kubeforge's CEL corpus (packages/cel/test/corpus) from the test tables of
// Kubernetes (k8s.io/apiextensions-apiserver's schema/cel compilation, validation and cost tests;
// k8s.io/apiserver's pkg/cel/library tests) and from cel-spec's conformance data (cel.dev/expr),
// at the versions go.mod pins (the ones kube-apiserver v1.37.2 is built with).
//
// Kubernetes' tables are Go code (schemas built by helper functions, rules by fmt.Sprintf, values
// of cel-go types), so they are not parsed but run: the packages are copied into a temporary
// folder, their test files are rewritten (inject.go) so that each test writes its table, or each
// call of its assertion helper, as JSON (hook.go.txt) instead of asserting, and `go test` runs
// them. The JSON is then turned into corpus cases here, each with the file and line that wrote it.
//
// Usage (from this folder): go run . [-out ../../corpus] [-keep]
// The output is deterministic: a second run over the same modules writes the same bytes.
package main

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed hook.go.txt
var hookSource string

//go:embed celvalue.go
var celValueSource string

//go:embed schema.go.txt
var schemaSource string

// A Kubernetes package whose tests are read, and what is read from each of its files.
type pkgSpec struct {
	module string
	dir    string // inside the module
	files  []fileSpec
}

var k8sPackages = []pkgSpec{
	{
		module: "k8s.io/apiextensions-apiserver",
		dir:    "pkg/apiserver/schema/cel",
		files: []fileSpec{
			{name: "validation_test.go", tables: []string{"TestValidationExpressions", "TestValidationExpressionsAtSchemaLevels", "TestCELMaxRecursionDepth", "TestMessageExpression", "TestReasonAndFldPath", "TestOptionalOldSelf", "TestOptionalOldSelfCheckForNull", "TestOptionalOldSelfIsOptionalType"}},
			{name: "compilation_test.go", tables: []string{"TestCelCompilation", "TestCostEstimation", "TestMetadataNameCostIsBounded"}},
			{name: "celcoststability_test.go", tables: []string{"TestCelCostStability", "TestCelEstimatedCostStability"}},
		},
	},
	{
		module: "k8s.io/apiserver",
		dir:    "pkg/cel/library",
		files: []fileSpec{
			{name: "cost_test.go", helpers: []string{"testCost"}, loops: []string{"TestListsCost", "TestIndexOfCost", "TestIncludesCost", "TestURLsCost", "TestIPCost", "TestIPIsCanonicalCost", "TestCIDRCost", "TestStringLibrary", "TestAuthzLibrary", "TestQuantityCost", "TestNameFormatCost", "TestSetsCost", "TestSemverCost", "TestTwoVariableComprehensionCost"}},
			{name: "quantity_test.go", helpers: []string{"testQuantity"}, loops: []string{"TestQuantity"}},
			{name: "format_test.go", loops: []string{"TestFormat"}},
			{name: "ip_test.go", helpers: []string{"testIP"}, loops: []string{"TestIP"}},
			{name: "cidr_test.go", helpers: []string{"testCIDR"}, loops: []string{"TestCIDR"}},
			{name: "semver_test.go", helpers: []string{"testSemver"}, loops: []string{"TestSemver"}},
		},
	},
}

func main() {
	out := flag.String("out", "../../corpus", "folder the corpus files are written to")
	keep := flag.Bool("keep", false, "keep the temporary folder (for debugging the extractor)")
	flag.Parse()
	if err := run(*out, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "celcorpus:", err)
		os.Exit(1)
	}
}

func run(out string, keep bool) error {
	here, err := os.Getwd()
	if err != nil {
		return err
	}
	dirs, versions, err := moduleDirs(here, "k8s.io/apiextensions-apiserver", "k8s.io/apiserver", "cel.dev/expr")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kf-celcorpus-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "celcorpus: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	// the runner module: this one's requirements, with the two Kubernetes modules replaced by copies
	runner := filepath.Join(tmp, "run")
	if err := os.MkdirAll(runner, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"go.mod", "go.sum", "tools.go"} {
		b, err := os.ReadFile(filepath.Join(here, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(runner, f), b, 0o644); err != nil {
			return err
		}
	}
	dump := filepath.Join(tmp, "dump")
	if err := os.MkdirAll(dump, 0o755); err != nil {
		return err
	}

	funcs := map[string]*funcInfo{} // test function -> static facts
	var corpora []*corpus
	for _, p := range k8sPackages {
		copyDir := filepath.Join(tmp, filepath.Base(p.module))
		if err := copyTree(dirs[p.module], copyDir); err != nil {
			return err
		}
		if err := goCmd(runner, nil, "mod", "edit", "-replace", p.module+"="+copyDir); err != nil {
			return err
		}
		pkgDir := filepath.Join(copyDir, p.dir)
		var tests []string
		for _, fs := range p.files {
			src, err := os.ReadFile(filepath.Join(pkgDir, fs.name))
			if err != nil {
				return err
			}
			rewritten, infos, err := rewrite(src, fs)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(pkgDir, fs.name), rewritten, 0o644); err != nil {
				return err
			}
			for name, info := range infos {
				funcs[name] = info
				tests = append(tests, name)
			}
		}
		// the hooks, in each package the test files declare (internal and external tests)
		for _, pkg := range testPackages(pkgDir) {
			files := map[string]string{"zz_kf_hook_" + pkg + "_test.go": hookSource, "zz_kf_celvalue_" + pkg + "_test.go": celValueSource}
			if p.module == "k8s.io/apiextensions-apiserver" && pkg == "cel" {
				files["zz_kf_schema_"+pkg+"_test.go"] = schemaSource
			}
			for name, text := range files {
				text = strings.Replace(text, "package PACKAGE", "package "+pkg, 1)
				text = strings.Replace(text, "package main", "package "+pkg, 1)
				if err := os.WriteFile(filepath.Join(pkgDir, name), []byte(text), 0o644); err != nil {
					return err
				}
			}
		}
		sort.Strings(tests)
		fmt.Fprintf(os.Stderr, "celcorpus: running %d tests of %s/%s\n", len(tests), p.module, p.dir)
		args := []string{"test", "-count=1", "-vet=off", "-run", "^(" + strings.Join(tests, "|") + ")$", p.module + "/" + p.dir}
		if err := goCmd(runner, []string{"KF_DUMP_DIR=" + dump, "GOFLAGS=-mod=mod"}, args...); err != nil {
			return err
		}
	}

	ext, err := apiextensionsCorpus(dump, funcs, versions["k8s.io/apiextensions-apiserver"])
	if err != nil {
		return err
	}
	lib, err := libraryCorpus(dump, funcs, versions["k8s.io/apiserver"])
	if err != nil {
		return err
	}
	spec, err := celSpecCorpus(dirs["cel.dev/expr"], versions["cel.dev/expr"])
	if err != nil {
		return err
	}
	corpora = append(corpora, ext, lib, spec)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, c := range corpora {
		if err := c.write(filepath.Join(out, c.File)); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "celcorpus: %s: %d cases\n", c.File, len(c.Cases))
	}
	return nil
}

func moduleDirs(here string, mods ...string) (map[string]string, map[string]string, error) {
	cmd := exec.Command("go", append([]string{"list", "-m", "-f", "{{.Path}} {{.Version}} {{.Dir}}"}, mods...)...)
	cmd.Dir = here
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list -m: %w", err)
	}
	dirs := map[string]string{}
	versions := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 || f[2] == "" {
			return nil, nil, fmt.Errorf("module %s is not in the module cache (go mod download)", f[0])
		}
		versions[f[0]] = f[1]
		dirs[f[0]] = f[2]
	}
	return dirs, versions, nil
}

func goCmd(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// testPackages: the package names the _test.go files of a folder declare.
func testPackages(dir string) []string {
	seen := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), "_test.go") || strings.HasPrefix(e.Name(), "zz_kf_") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "package ") {
				seen[strings.TrimSpace(strings.TrimPrefix(line, "package "))] = true
				break
			}
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ---- the corpus files ----

// corpus is one output file: the cases of one source, with the schemas and objects they share.
type corpus struct {
	File      string           `json:"-"`
	Source    string           `json:"source"`
	Generator string           `json:"generator"`
	Note      string           `json:"note,omitempty"`
	Excluded  []excluded       `json:"excluded"`
	Schemas   map[string]any   `json:"schemas,omitempty"`
	Objects   map[string]any   `json:"objects,omitempty"`
	Cases     []map[string]any `json:"cases"`
}

// excluded: a part of a source that is not turned into cases, and why.
type excluded struct {
	Where  string `json:"where"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

// share stores a value in a shared table under a name derived from its content.
func share(table map[string]any, prefix string, v any) string {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		panic(err)
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	h := sha256.Sum256(b)
	id := prefix + hex.EncodeToString(h[:])[:12]
	table[id] = json.RawMessage(b)
	return id
}

func (c *corpus) add(cs map[string]any) {
	id := cs["id"].(string)
	for _, x := range c.Cases {
		if x["id"] == id {
			panic("duplicate case id " + id)
		}
	}
	c.Cases = append(c.Cases, cs)
}

func (c *corpus) exclude(where string, count int, reason string) {
	for i := range c.Excluded {
		if c.Excluded[i].Where == where && c.Excluded[i].Reason == reason {
			c.Excluded[i].Count += count
			return
		}
	}
	c.Excluded = append(c.Excluded, excluded{where, count, reason})
}

// write: the header fields, then one case per line (diffs stay readable).
func (c *corpus) write(path string) error {
	var b bytes.Buffer
	enc := func(v any) []byte {
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetEscapeHTML(false)
		if err := e.Encode(v); err != nil {
			panic(err)
		}
		return bytes.TrimRight(buf.Bytes(), "\n")
	}
	if c.Excluded == nil {
		c.Excluded = []excluded{}
	}
	b.WriteString("{\n")
	fmt.Fprintf(&b, "\"source\": %s,\n\"generator\": %s,\n", enc(c.Source), enc(c.Generator))
	if c.Note != "" {
		fmt.Fprintf(&b, "\"note\": %s,\n", enc(c.Note))
	}
	fmt.Fprintf(&b, "\"excluded\": [\n")
	for i, x := range c.Excluded {
		sep := ","
		if i == len(c.Excluded)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s%s\n", enc(x), sep)
	}
	b.WriteString("],\n")
	for _, t := range []struct {
		name  string
		table map[string]any
	}{{"schemas", c.Schemas}, {"objects", c.Objects}} {
		fmt.Fprintf(&b, "%q: {\n", t.name)
		keys := make([]string, 0, len(t.table))
		for k := range t.table {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			sep := ","
			if i == len(keys)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "  %s: %s%s\n", enc(k), enc(t.table[k]), sep)
		}
		b.WriteString("},\n")
	}
	b.WriteString("\"cases\": [\n")
	for i, cs := range c.Cases {
		sep := ","
		if i == len(c.Cases)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s%s\n", enc(cs), sep)
	}
	b.WriteString("]\n}\n")
	return os.WriteFile(path, b.Bytes(), 0o644)
}
